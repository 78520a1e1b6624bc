package io.fanout.spark.internal;

import io.fanout.store.CancelledException;
import io.fanout.train.TrainCancelledException;
import org.apache.spark.SparkThrowable;
import org.apache.spark.TaskKilledException;

/**
 * Tells a cancelled stage from a failed one: Spark's {@code SPARK_JOB_CANCELLED} (a cancelled job
 * group or tag), a killed task, a trainer stopped by its task's cancellation, or work stopped at a
 * {@link io.fanout.store.Cancellation#check}, anywhere in the cause chain.
 */
public final class Cancels {
  /** Spark's error condition of a job cancelled through its group, its tag or the whole context. */
  public static final String SPARK_JOB_CANCELLED = "SPARK_JOB_CANCELLED";

  private Cancels() {}

  /** The throwable in {@code e}'s cause chain that says it was cancelled; null when none does. */
  public static Throwable find(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof TrainCancelledException
          || t instanceof CancelledException
          || t instanceof TaskKilledException
          || (t instanceof SparkThrowable st && SPARK_JOB_CANCELLED.equals(st.getCondition()))) {
        return t;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }

  /** True when {@code e} says its stage was cancelled. */
  public static boolean isCancel(Throwable e) {
    return find(e) != null;
  }
}
