package io.fanout.tensor;

/**
 * A plug-in backend found through {@link java.util.ServiceLoader}. A JCuda backend ships as its own
 * provider; {@link Backends#select()} picks the available provider with the highest priority and
 * falls back to the CPU.
 */
public interface BackendProvider {
  /** The name users select with {@code -Dfanout.backend=NAME}, e.g. {@code cpu}, {@code cuda}. */
  String name();

  /** Higher wins when several are available; the CPU provider has 0. */
  int priority();

  /** Whether this backend can run here (e.g. a CUDA device exists); must not throw. */
  boolean available();

  /** A new backend instance. */
  Backend create();
}
