package io.fanout.spark.internal;

import java.util.List;
import java.util.function.Supplier;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The numbered steps of one run of a stage, known before the first runs: {@link #call} labels the
 * Spark jobs of a step with {@link JobLabels} as {@code "fanout <stage>: <step> (<i>/<n>)"}, where
 * {@code i} is the step's position in the list and {@code n} the list's length.
 *
 * <p>List only the steps this run will take (a step whose jobs are skipped for these options is
 * left out), so that the last step a successful run labels is {@code (n/n)}.
 */
public final class JobSteps {
  private final SparkContext sc;
  private final String stage;
  private final List<String> steps;

  public JobSteps(SparkSession spark, String stage, List<String> steps) {
    this(spark.sparkContext(), stage, steps);
  }

  public JobSteps(SparkContext sc, String stage, List<String> steps) {
    if (steps.isEmpty() || steps.size() != steps.stream().distinct().count()) {
      throw new IllegalArgumentException("steps must be distinct and not empty: " + steps);
    }
    this.sc = sc;
    this.stage = stage;
    this.steps = List.copyOf(steps);
  }

  /** The number of steps. */
  public int count() {
    return steps.size();
  }

  /** True when {@code step} is one of this run's steps. */
  public boolean has(String step) {
    return steps.contains(step);
  }

  /** Runs {@code body} with its Spark jobs labelled as {@code step}. */
  public <T> T call(String step, Supplier<T> body) {
    return JobLabels.call(sc, stage, step, indexOf(step), steps.size(), body);
  }

  /** {@link #call} for a body without a result. */
  public void run(String step, Runnable body) {
    JobLabels.run(sc, stage, step, indexOf(step), steps.size(), body);
  }

  private int indexOf(String step) {
    int i = steps.indexOf(step);
    if (i < 0) {
      throw new IllegalArgumentException(
          "step '" + step + "' is not one of this run's steps " + steps);
    }
    return i + 1;
  }
}
