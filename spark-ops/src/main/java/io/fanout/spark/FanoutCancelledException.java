package io.fanout.spark;

import java.util.Locale;

/**
 * A stage of {@link Fanout} stopped because its caller cancelled it: the job group its Spark jobs
 * ran in ({@code sc.cancelJobGroup}), a tag of its session ({@code spark.addTag} then {@code
 * spark.interruptTag}), or all jobs. Not a failure: nothing was published after the cancel, and the
 * session goes on. {@link #kept()} says what the stage's outputs hold now.
 */
public final class FanoutCancelledException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String stage;
  private final String kept;

  /**
   * @param stage the cancelled stage, e.g. {@code train}
   * @param how how it was cancelled, e.g. {@code job group fanout-train}
   * @param kept what the stage's outputs hold now
   * @param cause what the stage stopped with
   */
  public FanoutCancelledException(String stage, String how, String kept, Throwable cause) {
    super(String.format(Locale.ROOT, "%s cancelled (%s); %s", stage, how, kept), cause);
    this.stage = stage;
    this.kept = kept;
  }

  /** The cancelled stage: {@code prepare}, {@code sample}, {@code train}, ... */
  public String stage() {
    return stage;
  }

  /** What the stage's outputs hold now, e.g. that nothing was published. */
  public String kept() {
    return kept;
  }
}
