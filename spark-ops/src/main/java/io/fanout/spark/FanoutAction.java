package io.fanout.spark;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.IfExists;
import io.fanout.conf.OptionDef;
import io.fanout.conf.OptionSpelling;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.options.FanoutKeys;
import io.fanout.spark.internal.Cancels;
import io.fanout.spark.internal.JobLabels;
import io.fanout.store.InvalidInputException;
import java.nio.file.Files;
import java.nio.file.Path;
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
  private boolean flags;

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

  /**
   * What the stage does when its output already holds something, as {@code DataFrameWriter.mode}:
   * {@code errorifexists} (refuse any output there), {@code ignore} (keep any complete output and
   * skip), {@code overwrite} (replace it), {@code resume} ({@code train} only: continue the run the
   * model dir holds). Without a mode, an identical, complete request is skipped (its result's
   * {@code skipped()} is true) and a changed one is refused. The option is {@code if-exists}
   * ({@code bin/fanout --if-exists}), where {@code same} is the default.
   */
  public A mode(String mode) {
    return option(SharedOptions.IF_EXISTS.name(), Objects.requireNonNull(mode, "mode"));
  }

  /**
   * Words this action's refusals as {@code bin/fanout}'s flags ({@code --overwrite}) rather than as
   * API calls ({@code mode("overwrite")}); for command lines built on this API.
   */
  public A commandLineTerms() {
    this.flags = true;
    return self();
  }

  /** Runs the stage. */
  public abstract R execute();

  /**
   * The stage's {@link IfExists}: the {@code if-exists} option, else {@code legacyMeans} when the
   * stage's older boolean option {@code legacy} ({@code overwrite}, {@code resume}) is true.
   *
   * @throws FanoutConfigException on {@code resume} where there is nothing to resume, or a mode
   *     that contradicts {@code legacy}
   */
  protected final IfExists ifExists(
      FanoutConf c, OptionDef<Boolean> legacy, IfExists legacyMeans, boolean resumable) {
    IfExists m = c.get(SharedOptions.IF_EXISTS);
    if (legacy != null && c.get(legacy)) {
      if (m != IfExists.SAME && m != legacyMeans) {
        throw new FanoutConfigException(
            say(
                "mode(\"" + m.id() + "\") contradicts option " + legacy.name() + "=true; give one",
                "--if-exists " + m.id() + " contradicts --" + legacy.name() + "; give one"));
      }
      m = legacyMeans;
    }
    if (m == IfExists.RESUME && !resumable) {
      throw new FanoutConfigException(
          say(
              "mode(\"resume\") continues a training run; "
                  + capability
                  + " has none: use mode(\"overwrite\"), \"ignore\" or \"errorifexists\"",
              "--if-exists resume continues a training run; "
                  + capability
                  + " has none: use --overwrite, --if-exists ignore or --if-exists error"));
    }
    return m;
  }

  /**
   * Applies {@code m} to an output directory before the stage runs: with {@code errorifexists}
   * refuses one that holds anything; with {@code ignore} returns {@code existing} (the earlier
   * result) when it holds a manifest; otherwise returns null and the stage runs.
   */
  protected final <T> T beforeWriting(
      IfExists m, String output, String kind, java.util.function.Function<Path, T> existing) {
    if (output == null || output.isBlank()) {
      return null;
    }
    Path out = Path.of(output);
    if (m == IfExists.ERROR && holdsAnything(out)) {
      throw new InvalidInputException(
          out
              + " already holds a "
              + kind
              + "; "
              + say(
                  "mode(\"errorifexists\") refuses any output there: choose another output, or"
                      + " call mode(\"overwrite\") to replace it",
                  "--if-exists error refuses any output there: choose another --output, or pass"
                      + " --overwrite to replace it"));
    }
    if (m == IfExists.IGNORE && Files.isRegularFile(out.resolve("manifest.json"))) {
      return existing.apply(out);
    }
    return null;
  }

  private static boolean holdsAnything(Path out) {
    if (!Files.exists(out)) {
      return false;
    }
    if (!Files.isDirectory(out)) {
      return true;
    }
    try (java.util.stream.Stream<Path> s = Files.list(out)) {
      return s.findAny().isPresent();
    } catch (java.io.IOException e) {
      return true;
    }
  }

  /** {@code api} for API callers, {@code flags} for {@link #commandLineTerms()} ones. */
  protected final String say(String api, String flags) {
    return this.flags ? flags : api;
  }

  /**
   * {@code e} with its advice in the caller's terms: for API callers, the flags the stages below
   * name ({@code --overwrite}, {@code --resume}, {@code --output}, {@code --model-dir}) become the
   * calls that do the same.
   */
  protected final RuntimeException inCallerTerms(RuntimeException e) {
    if (!(e instanceof InvalidInputException) || e.getMessage() == null) {
      return e;
    }
    if (flags) {
      String m =
          e.getMessage()
              .replace(
                  "use another --model-dir or the same options",
                  "pass --overwrite to replace it, give the same options, or use another"
                      + " --model-dir");
      return m.equals(e.getMessage()) ? e : new InvalidInputException(m, e);
    }
    String m =
        e.getMessage()
            .replace("Pass --overwrite", "Call mode(\"overwrite\")")
            .replace("pass --overwrite", "call mode(\"overwrite\")")
            .replace("pass --resume", "call mode(\"resume\")")
            .replace(
                "use another --model-dir or the same options",
                "call mode(\"overwrite\") to replace it, give the same options, or choose another"
                    + " modelDir")
            .replace("--overwrite", "mode(\"overwrite\")")
            .replace("--resume", "mode(\"resume\")")
            .replace("another --output", "another output")
            .replace("--model-dir", "modelDir");
    return m.equals(e.getMessage()) ? e : new InvalidInputException(m, e);
  }

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
