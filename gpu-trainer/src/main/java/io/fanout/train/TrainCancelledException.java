package io.fanout.train;

/**
 * Training stopped because its caller cancelled it (for instance a cancelled Spark job group), not
 * because of bad input or a failure. Checkpoints written before are complete; a rerun with {@code
 * resume} continues from the last one.
 */
public final class TrainCancelledException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public TrainCancelledException(String message) {
    super(message);
  }

  public TrainCancelledException(String message, Throwable cause) {
    super(message, cause);
  }
}
