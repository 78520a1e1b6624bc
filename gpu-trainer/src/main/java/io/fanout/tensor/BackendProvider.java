package io.fanout.tensor;

/**
 * A plug-in backend found through {@link java.util.ServiceLoader}. A JCuda backend ships as its own
 * provider; {@link Backends} picks one by name ({@code --backend}, {@code -Dfanout.backend}) or,
 * for {@code auto}, the available provider with the highest priority, falling back to the CPU.
 */
public interface BackendProvider {
  /** The name users select with {@code --backend NAME}, e.g. {@code cpu}, {@code cuda}. */
  String name();

  /** Higher wins when several are available; the CPU provider has 0. */
  int priority();

  /** Whether this backend can run here (e.g. a usable CUDA device exists); must not throw. */
  boolean available();

  /**
   * Why {@link #available()} is false, in one line for logs and error messages (e.g. "no CUDA
   * device visible (cuInit: CUDA_ERROR_NO_DEVICE)"); must not throw.
   */
  default String unavailableReason() {
    return available() ? "" : "backend '" + name() + "' is not available here";
  }

  /** A new backend instance on the provider's default device. */
  Backend create();

  /**
   * A new backend instance on device {@code ordinal} (as numbered by the provider's runtime, e.g. a
   * CUDA device ordinal from Spark's {@code TaskContext.resources()}). {@code ordinal < 0} means
   * the default device. Backends without devices ignore the ordinal.
   */
  default Backend create(int ordinal) {
    return create();
  }
}
