package io.fanout.spark.internal;

import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Labels the Spark jobs Fanout starts, so that the Spark UI and a notebook's job view say what is
 * running, and so that a caller can cancel them.
 *
 * <p>Every job started inside {@link #call} or {@link #run} carries the description {@code "fanout
 * <stage>: <step> (<index>/<count>)"}. Its job group is the caller's when the calling thread
 * already has one (a notebook cell's group, so that cancelling the cell cancels Fanout's jobs);
 * otherwise it is {@link #defaultGroup(String)}, with interrupt-on-cancel, so that {@code
 * spark.sparkContext().cancelJobGroup("fanout-train")} stops a running {@code train}. The thread's
 * previous description and group are restored afterwards, whatever {@code body} does. A stage of
 * several steps numbers them with {@link JobSteps}; {@code docs/developing.md} says how to label a
 * new job.
 */
public final class JobLabels {
  /** Spark's thread-local property holding the job group. */
  public static final String GROUP = "spark.jobGroup.id";

  /** Spark's thread-local property holding the job description. */
  public static final String DESCRIPTION = "spark.job.description";

  /** Spark's thread-local property: whether cancelling the group interrupts the task threads. */
  public static final String INTERRUPT = "spark.job.interruptOnCancel";

  /** Spark's thread-local property holding the job tags, comma-separated. */
  public static final String TAGS = "spark.job.tags";

  private JobLabels() {}

  /** The job group of a stage's jobs when the caller set none: {@code fanout-<stage>}. */
  public static String defaultGroup(String stage) {
    return "fanout-" + stage;
  }

  /**
   * The job group {@link #call} gives the jobs of {@code stage} started on the calling thread now:
   * the thread's own group if it has one, else {@link #defaultGroup(String)}; the group to cancel.
   */
  public static String groupFor(SparkSession spark, String stage) {
    String group = spark.sparkContext().getLocalProperty(GROUP);
    return group != null ? group : defaultGroup(stage);
  }

  /** The description of step {@code index} of {@code count} of a stage. */
  public static String description(String stage, String step, int index, int count) {
    return String.format(Locale.ROOT, "fanout %s: %s (%d/%d)", stage, step, index, count);
  }

  /**
   * Runs {@code body} with its Spark jobs labelled as step {@code index} of {@code count}, and
   * carrying the tags the calling thread gave {@code spark} ({@code spark.addTag}), so that {@code
   * spark.interruptTag} reaches them as it reaches the session's SQL jobs.
   */
  public static <T> T call(
      SparkSession spark, String stage, String step, int index, int count, Supplier<T> body) {
    return call(spark.sparkContext(), sessionTags(spark), stage, step, index, count, body);
  }

  /**
   * {@link #call(SparkSession, String, String, int, int, Supplier)} for RDD code; the tags are
   * those of the thread's active session (else the default one).
   */
  public static <T> T call(
      SparkContext sc, String stage, String step, int index, int count, Supplier<T> body) {
    scala.Option<SparkSession> active = SparkSession.getActiveSession();
    if (active.isEmpty()) {
      active = SparkSession.getDefaultSession();
    }
    Set<String> tags = active.isDefined() ? sessionTags(active.get()) : Set.of();
    return call(sc, tags, stage, step, index, count, body);
  }

  private static <T> T call(
      SparkContext sc,
      Set<String> tags,
      String stage,
      String step,
      int index,
      int count,
      Supplier<T> body) {
    String group = sc.getLocalProperty(GROUP);
    String description = sc.getLocalProperty(DESCRIPTION);
    String interrupt = sc.getLocalProperty(INTERRUPT);
    String jobTags = sc.getLocalProperty(TAGS);
    try {
      if (group == null) {
        sc.setLocalProperty(GROUP, defaultGroup(stage));
        sc.setLocalProperty(INTERRUPT, "true");
      }
      sc.setLocalProperty(DESCRIPTION, description(stage, step, index, count));
      if (!tags.isEmpty()) {
        sc.addJobTags(CollectionConverters.asScala(tags).toSet());
      }
      return body.get();
    } finally {
      sc.setLocalProperty(GROUP, group);
      sc.setLocalProperty(DESCRIPTION, description);
      sc.setLocalProperty(INTERRUPT, interrupt);
      sc.setLocalProperty(TAGS, jobTags);
    }
  }

  /**
   * The job tags that {@code spark.addTag} gave the calling thread (as the session's SQL jobs carry
   * them; {@code spark.interruptTag} cancels the jobs with these), with the session's own tag.
   */
  static Set<String> sessionTags(SparkSession spark) {
    if (spark instanceof org.apache.spark.sql.classic.SparkSession classic) {
      Set<String> tags = new TreeSet<>();
      CollectionConverters.asJava(classic.managedJobTags().get().values()).forEach(tags::add);
      return tags;
    }
    return Set.of();
  }

  /** {@link #call} for a body without a result. */
  public static void run(
      SparkSession spark, String stage, String step, int index, int count, Runnable body) {
    run(spark.sparkContext(), stage, step, index, count, body);
  }

  /** {@link #call} for a body without a result. */
  public static void run(
      SparkContext sc, String stage, String step, int index, int count, Runnable body) {
    call(
        sc,
        stage,
        step,
        index,
        count,
        () -> {
          body.run();
          return null;
        });
  }
}
