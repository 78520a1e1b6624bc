package io.fanout.spark;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.IfExists;
import io.fanout.conf.options.SampleOptions;
import io.fanout.sample.Fanouts;
import io.fanout.shard.ShardManifest;
import io.fanout.spark.internal.JobLabels;
import io.fanout.spark.sample.SampleJob;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import org.apache.spark.sql.SparkSession;

/**
 * A configured {@code sample} of a graph store into mini-batch shards; see {@link Fanout} and
 * {@link SampleOptions} (the same options as {@code bin/fanout sample}).
 */
public final class SampleAction extends FanoutAction<SampleAction, SampleResult> {
  private PrintStream progress = System.err;

  SampleAction(SparkSession spark, String store) {
    super(spark, "sample", SampleOptions.ALL);
    if (store != null) {
      option(SampleOptions.GRAPH.name(), store);
    }
  }

  /** The shard directory to write ({@code output}); visible to every executor. */
  public SampleAction output(String path) {
    return option(SampleOptions.OUTPUT.name(), path);
  }

  /** The seed vertices: {@code train}, {@code val}, {@code test} or {@code all} ({@code split}). */
  public SampleAction split(String split) {
    return option(SampleOptions.SPLIT.name(), split);
  }

  /**
   * Typed stores: neighbors per relation and hop, e.g. {@code "cites=10,5;*=5,3"} ({@code fanouts};
   * {@code docs/heterogeneous.md}).
   */
  public SampleAction fanouts(String perRelation) {
    return option(SampleOptions.FANOUTS.name(), perRelation);
  }

  /** Typed stores: the vertex type the seeds are drawn from ({@code seed-type}). */
  public SampleAction seedType(String type) {
    return option(SampleOptions.SEED_TYPE.name(), type);
  }

  /** Neighbors per node and hop, hop 1 first; -1 = all ({@code fanouts}). */
  public SampleAction fanouts(int... perHop) {
    return option(SampleOptions.FANOUTS.name(), Fanouts.format(perHop));
  }

  /** Seeds per mini-batch ({@code batch-size}). */
  public SampleAction batchSize(int seeds) {
    return option(SampleOptions.BATCH_SIZE.name(), Integer.toString(seeds));
  }

  /** Epochs to sample ({@code epochs}). */
  public SampleAction epochs(int epochs) {
    return option(SampleOptions.EPOCHS.name(), Integer.toString(epochs));
  }

  /** The random seed ({@code seed}). */
  public SampleAction seed(long seed) {
    return option(SampleOptions.SEED.name(), Long.toString(seed));
  }

  /** Whether to replace shards of a different request at the output ({@code overwrite}). */
  public SampleAction overwrite(boolean overwrite) {
    return option(SampleOptions.OVERWRITE.name(), Boolean.toString(overwrite));
  }

  /** Where progress lines go (default {@code System.err}); null for none. */
  public SampleAction progress(PrintStream out) {
    this.progress = out;
    return this;
  }

  /**
   * Samples the store into shards, or skips when the output already holds complete shards of the
   * same request. Its Spark jobs are labelled {@code fanout sample: ...} and run in the caller's
   * job group, else in {@code fanout-sample}.
   *
   * @throws io.fanout.store.InvalidInputException on bad input, or when the output holds shards of
   *     another request and {@code overwrite} is false; nothing is published then
   * @throws io.fanout.conf.FanoutConfigException on bad options
   * @throws FanoutCancelledException when its job group or a session tag was cancelled; nothing is
   *     published then
   */
  @Override
  public SampleResult execute() {
    PrintStream err =
        progress != null ? progress : new PrintStream(OutputStream.nullOutputStream());
    FanoutConf c = conf();
    IfExists m = ifExists(c, SampleOptions.OVERWRITE, IfExists.OVERWRITE, false);
    if (m == IfExists.OVERWRITE && !c.get(SampleOptions.OVERWRITE)) {
      option(SampleOptions.OVERWRITE.name(), "true");
      c = conf();
    }
    String out = c.get(SampleOptions.OUTPUT);
    SampleResult kept =
        beforeWriting(
            m,
            out,
            "shard directory",
            dir -> new SampleResult(spark(), dir, ShardManifest.readAny(dir), true, 0));
    if (kept != null) {
      return kept;
    }
    try {
      return run(c, out, err);
    } catch (RuntimeException e) {
      throw inCallerTerms(e);
    }
  }

  private SampleResult run(FanoutConf c, String out, PrintStream err) {
    return SampleResult.of(
        spark(),
        cancellable(
            () ->
                "nothing was published; "
                    + (out == null || out.isBlank() ? "the output" : out)
                    + " is as it was",
            () ->
                JobLabels.call(
                    spark(),
                    "sample",
                    "sampling",
                    1,
                    1,
                    () -> {
                      try {
                        return SampleJob.run(spark(), c, err);
                      } catch (IOException e) {
                        throw new UncheckedIOException(e);
                      }
                    })));
  }
}
