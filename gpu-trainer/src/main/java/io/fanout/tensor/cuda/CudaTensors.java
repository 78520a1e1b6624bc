package io.fanout.tensor.cuda;

import io.fanout.tensor.Backend;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.Tensor;
import jcuda.driver.CUdeviceptr;

/** The CUDA backend's tensors: a device buffer leased from its pool. */
final class CudaTensors {
  private CudaTensors() {}

  /** Device memory of {@code length} 4-byte elements. */
  abstract static class Base implements Tensor {
    private final Backend owner;
    private final int length;
    DevicePool.Lease<CUdeviceptr> lease;

    Base(Backend owner, int length, DevicePool.Lease<CUdeviceptr> lease) {
      this.owner = owner;
      this.length = length;
      this.lease = lease;
    }

    @Override
    public int length() {
      return length;
    }

    @Override
    public Backend owner() {
      return owner;
    }
  }

  static final class Floats extends Base implements FloatTensor {
    Floats(Backend owner, int length, DevicePool.Lease<CUdeviceptr> lease) {
      super(owner, length, lease);
    }
  }

  /**
   * An int tensor keeps a host mirror of what was uploaded into it: int tensors hold block and
   * sparse-feature structure (CSR offsets and indices, labels), which no operation writes on the
   * device, so the mirror is exact. The backward passes build their transposed CSR from it without
   * reading the device.
   */
  static final class Ints extends Base implements IntTensor {
    final int[] mirror;

    Ints(Backend owner, int length, DevicePool.Lease<CUdeviceptr> lease) {
      super(owner, length, lease);
      this.mirror = new int[length];
    }
  }
}
