package io.fanout.tensor.cuda;

/** A CUDA driver (or cuBLAS) call that returned an error: names the call and the error. */
public final class CudaException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String call;
  private final int code;

  CudaException(String call, int code, String errorName) {
    super(call + " failed: " + errorName + " (" + code + ")");
    this.call = call;
    this.code = code;
  }

  /** The driver call, e.g. {@code cuMemAlloc}. */
  public String call() {
    return call;
  }

  /** The raw return code ({@code CUresult} or {@code cublasStatus}). */
  public int code() {
    return code;
  }
}
