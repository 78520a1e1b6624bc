package io.fanout.tensor;

/**
 * A buffer of elements owned by a {@link Backend}: host memory for the CPU backend, device memory
 * for an accelerator. A tensor is a flat range of {@link #length()} elements; operations address
 * sub-ranges explicitly as (tensor, element offset), which a device backend maps to pointer
 * arithmetic. Contents are reached from the host only through {@link Backend#upload} and {@link
 * Backend#download}.
 *
 * <p>Closing a tensor frees it ({@link Backend#free}); a freed tensor must not be used again.
 */
public interface Tensor extends AutoCloseable {
  /** The number of elements. */
  int length();

  /** The backend that allocated this tensor; only it may operate on it. */
  Backend owner();

  /** Frees the tensor; the same as {@code owner().free(this)}. */
  @Override
  default void close() {
    owner().free(this);
  }
}
