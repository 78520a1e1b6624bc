package io.fanout.spark;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.conf.OptionSpelling;
import io.fanout.conf.options.FanoutKeys;
import io.fanout.spark.internal.Cancels;
import io.fanout.spark.internal.JobLabels;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What every stage of {@link Fanout} shares: options by their names (the same names and defaults as
 * the command line; as with Spark's options, in any case and with hyphens, underscores or camel
 * case: {@code batch-size}, {@code batchSize} and {@code BATCH_SIZE} are one option), resolved from
 * the call, then the session configuration ({@code spark.fanout.<stage>.<name>} for this stage
 * only, then {@code spark.fanout.<name>}, shared by every stage with that option), then the
 * documented default; unknown options are rejected when the action runs.
 *
 * @param <A> the concrete action, returned by the option setters for chaining
 * @param <R> what {@link #execute()} returns
 */
public abstract class FanoutAction<A extends FanoutAction<A, R>, R> {
  private final SparkSession spark;
  private final String capability;
  private final List<OptionDef<?>> defs;
  private final Map<String, String> options = new LinkedHashMap<>();

  protected FanoutAction(SparkSession spark, String capability, List<OptionDef<?>> defs) {
    this.spark = Objects.requireNonNull(spark, "spark");
    this.capability = capability;
    this.defs = defs;
  }

  /**
   * Sets an option by its name, as {@code bin/fanout <stage> --help} lists it, in any case and with
   * hyphens, underscores or camel case between its words; a later spelling of the same option
   * replaces an earlier one.
   */
  public A option(String name, String value) {
    options.put(OptionSpelling.canonical(Objects.requireNonNull(name, "name"), defs), value);
    return self();
  }

  /** Sets several options; see {@link #option(String, String)}. */
  public A options(Map<String, String> all) {
    for (Map.Entry<String, String> e : all.entrySet()) {
      option(e.getKey(), e.getValue());
    }
    return self();
  }

  /** Runs the stage. */
  public abstract R execute();

  /** The caller's session; never stopped or reconfigured by an action. */
  protected final SparkSession spark() {
    return spark;
  }

  /** The options of this call resolved against the session configuration and the defaults. */
  protected final FanoutConf conf() {
    FanoutKeys.refuseUnknown(CollectionConverters.asJava(spark.conf().getAll()).keySet());
    return new FanoutConf(
        capability, defs, options, k -> Optional.ofNullable(spark.conf().get(k, null)));
  }

  /**
   * Runs {@code body}, the stage's work, and turns its cancellation (of the job group its jobs run
   * in, or of a session tag) into a {@link FanoutCancelledException} saying what {@code kept}
   * returns, asked once the work has stopped.
   */
  protected final <T> T cancellable(Supplier<String> kept, Supplier<T> body) {
    String group = JobLabels.groupFor(spark, capability);
    try {
      return body.get();
    } catch (Exception e) { // Spark's SparkException is checked, and thrown through Scala code
      Throwable cancel = Cancels.find(e);
      if (cancel == null) {
        throw e;
      }
      throw new FanoutCancelledException(capability, how(cancel, group), kept.get(), e);
    }
  }

  /** Spark's reason ("part of cancelled job group g", "... job tags t"), else the group. */
  private static String how(Throwable cancel, String group) {
    String m = cancel.getMessage() == null ? "" : cancel.getMessage();
    int at = m.indexOf("part of cancelled ");
    if (at >= 0) {
      String reason = m.substring(at + "part of cancelled ".length());
      int end = reason.indexOf(" SQLSTATE");
      return (end >= 0 ? reason.substring(0, end) : reason).strip();
    }
    return "job group " + group;
  }

  /** The stage's name, as its Spark jobs are labelled ({@code prepare}, {@code train}, ...). */
  protected final String stage() {
    return capability;
  }

  @SuppressWarnings("unchecked")
  private A self() {
    return (A) this;
  }
}
