package io.fanout.store;

/**
 * Work stopped at a {@link Cancellation#check} because its caller cancelled it; what it had not yet
 * published stays unpublished.
 */
public final class CancelledException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CancelledException(String message) {
    super(message);
  }

  public CancelledException(String message, Throwable cause) {
    super(message, cause);
  }
}
