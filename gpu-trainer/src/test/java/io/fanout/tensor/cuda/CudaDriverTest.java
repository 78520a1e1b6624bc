package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import org.junit.jupiter.api.Test;

class CudaDriverTest {
  @Test
  void errorCodesBecomeExceptionsNamingTheCallAndTheError() {
    assertThatCode(() -> CudaDriver.check("cuMemAlloc", CUresult.CUDA_SUCCESS))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> CudaDriver.check("cuMemAlloc", CUresult.CUDA_ERROR_OUT_OF_MEMORY))
        .isInstanceOf(CudaException.class)
        .hasMessage("cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (2)")
        .satisfies(
            e -> {
              assertThat(((CudaException) e).call()).isEqualTo("cuMemAlloc");
              assertThat(((CudaException) e).code()).isEqualTo(2);
            });
  }

  @Test
  void cleanupRunsEveryReleaseAndRethrowsTheFirstFailure() {
    NativeCleanup c = new NativeCleanup();
    int[] ran = new int[1];
    c.run("cuMemFree", () -> CUresult.CUDA_ERROR_INVALID_VALUE);
    c.run("cuEventDestroy", () -> ran[0]++);
    c.run("cuStreamDestroy", () -> CUresult.CUDA_ERROR_INVALID_HANDLE);
    assertThat(ran[0]).isEqualTo(1);
    assertThatThrownBy(c::rethrow)
        .hasMessageStartingWith("cuMemFree failed: CUDA_ERROR_INVALID_VALUE")
        .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));
  }

  @Test
  void anAddressIncludesTheByteOffsetOfAnOffsetPointer() {
    // a device pointer that was never allocated has base 0, so its address is the offset alone
    assertThat(CudaDriver.address(new CUdeviceptr())).isZero();
    assertThat(CudaDriver.address(new CUdeviceptr().withByteOffset(8))).isEqualTo(8);
    assertThat(CudaDriver.address(new CUdeviceptr().withByteOffset(8).withByteOffset(4)))
        .isEqualTo(12);
    Pointer host = Pointer.to(new float[4]);
    assertThat(CudaDriver.address(host.withByteOffset(8)) - CudaDriver.address(host)).isEqualTo(8);
    assertThat(CudaDriver.address(new CUstream())).isZero();
  }
}
