package io.fanout.spark;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.IfExists;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.spark.prepare.PrepareJob;
import io.fanout.store.StoreManifest;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** A configured {@code prepare}; see {@link Fanout} and {@link PrepareOptions}. */
public final class PrepareAction extends FanoutAction<PrepareAction, PrepareResult> {
  private final Dataset<Row> vertices;
  private final Dataset<Row> edges;

  PrepareAction(SparkSession spark, Dataset<Row> vertices, Dataset<Row> edges) {
    super(spark, "prepare", PrepareOptions.ALL);
    this.vertices = vertices;
    this.edges = edges;
  }

  /** The store directory to write ({@code output}). */
  public PrepareAction output(String path) {
    return option(PrepareOptions.OUTPUT.name(), path);
  }

  /**
   * Runs the preparation, or skips it when the output already holds a store prepared from the same
   * inputs and options (the result's {@code skipped()} is true); {@link #mode} says what to do with
   * a store of another request there.
   *
   * @throws io.fanout.store.InvalidInputException on bad input; nothing is published then
   * @throws FanoutCancelledException when its job group or a session tag was cancelled; nothing is
   *     published then
   * @throws io.fanout.conf.FanoutConfigException on bad options
   */
  @Override
  public PrepareResult execute() {
    FanoutConf c = conf();
    IfExists m = ifExists(c, PrepareOptions.OVERWRITE, IfExists.OVERWRITE, false);
    if (m == IfExists.OVERWRITE && !c.get(PrepareOptions.OVERWRITE)) {
      option(PrepareOptions.OVERWRITE.name(), "true");
      c = conf();
    }
    String out = c.get(PrepareOptions.OUTPUT);
    PrepareResult kept =
        beforeWriting(
            m,
            out,
            "graph store",
            dir -> new PrepareResult(spark(), dir, StoreManifest.read(dir), true, 0));
    if (kept != null) {
      return kept;
    }
    FanoutConf resolved = c;
    try {
      return run(resolved, out);
    } catch (RuntimeException e) {
      throw inCallerTerms(e);
    }
  }

  private PrepareResult run(FanoutConf c, String out) {
    return PrepareResult.of(
        spark(),
        cancellable(
            () ->
                "nothing was published; "
                    + (out == null || out.isBlank() ? "the output" : out)
                    + " is as it was",
            () -> new PrepareJob(spark(), c, vertices, edges).run()));
  }
}
