package io.fanout.tensor.cuda;

import io.fanout.tensor.LossReadback;
import java.nio.ByteBuffer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * Asynchronous read-back of a step's loss and correct count: the 16 bytes (a double, an int) are
 * copied on the compute stream into one of {@link #SLOTS} slots of pinned host memory, an event
 * marks the copy, and the {@link LossReadback} waits for that event only when it is first read. A
 * slot is reused {@link #SLOTS} read-backs later, after the value it held was read into its
 * readback. One thread at a time, like the backend.
 */
final class LossReadbacks implements AutoCloseable {
  static final int SLOTS = 8;
  static final int SLOT_BYTES = 16;

  private final CUstream stream;
  private final PinnedBuffer host;
  private final CUevent[] copied = new CUevent[SLOTS];
  private final Pending[] holders = new Pending[SLOTS];
  private int next;

  LossReadbacks(CUstream stream) {
    this.stream = stream;
    this.host = PinnedBuffer.allocate((long) SLOTS * SLOT_BYTES);
    try {
      for (int i = 0; i < SLOTS; i++) {
        copied[i] = new CUevent();
        CudaDriver.check("cuEventCreate", JCudaDriver.cuEventCreate(copied[i], 0));
      }
    } catch (RuntimeException e) {
      try {
        close();
      } catch (RuntimeException x) {
        e.addSuppressed(x);
      }
      throw e;
    }
  }

  /**
   * Queues the copy of {@code values} (a double loss at byte 0, an int count at byte 8, written by
   * work already queued on the stream) and returns its readback.
   */
  LossReadback queue(CUdeviceptr values) {
    int slot = next;
    next = (next + 1) % SLOTS;
    if (holders[slot] != null) {
      holders[slot].read(); // its value leaves the slot before the slot is overwritten
    }
    CudaDriver.check(
        "cuMemcpyDtoHAsync",
        JCudaDriver.cuMemcpyDtoHAsync(
            host.pointer().withByteOffset((long) slot * SLOT_BYTES), values, SLOT_BYTES, stream));
    CudaDriver.check("cuEventRecord", JCudaDriver.cuEventRecord(copied[slot], stream));
    Pending p = new Pending(slot);
    holders[slot] = p;
    return p;
  }

  private final class Pending implements LossReadback {
    private final int slot;
    private boolean read;
    private double loss;
    private int correct;

    Pending(int slot) {
      this.slot = slot;
    }

    void read() {
      if (read) {
        return;
      }
      CudaDriver.check("cuEventSynchronize", JCudaDriver.cuEventSynchronize(copied[slot]));
      ByteBuffer b = host.bytes();
      loss = b.getDouble(slot * SLOT_BYTES);
      correct = b.getInt(slot * SLOT_BYTES + 8);
      read = true;
      holders[slot] = null;
    }

    @Override
    public double lossSum() {
      read();
      return loss;
    }

    @Override
    public int correct() {
      read();
      return correct;
    }
  }

  @Override
  public void close() {
    NativeCleanup c = new NativeCleanup();
    for (CUevent e : copied) {
      if (e != null) {
        c.run("cuEventDestroy", () -> JCudaDriver.cuEventDestroy(e));
      }
    }
    c.close(host);
    c.rethrow();
  }
}
