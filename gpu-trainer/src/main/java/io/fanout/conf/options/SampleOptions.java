package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.Task;
import io.fanout.sample.Fanouts;
import io.fanout.train.Defaults;
import java.util.List;

/** The options of {@code sample}, shared by the API and {@code bin/fanout sample}. */
public final class SampleOptions {
  private SampleOptions() {}

  public static final OptionDef<String> GRAPH =
      SharedOptions.GRAPH.withDefault(null, "graph store directory (written by prepare)");
  public static final OptionDef<String> OUTPUT =
      SharedOptions.OUTPUT.withDefault(null, "shard directory to write; visible to every executor");
  public static final OptionDef<SeedSplit> SPLIT =
      OptionDef.enumeration(
          "split",
          SeedSplit.TRAIN,
          "seed vertices: a split of the store, or all",
          SeedSplit::parse,
          SeedSplit.values());
  public static final OptionDef<Task> TASK =
      SharedOptions.TASK.withDefault(
          "node",
          "node: seeds are vertices of --split; link: seeds are the training edges of a store"
              + " prepared with --task link, each with negatives (on a typed store, --split val|test"
              + " samples the held-out pairs with the negatives prepare stored)");
  public static final OptionDef<NegativeMode> NEGATIVES =
      OptionDef.enumeration(
          "negatives",
          NegativeMode.UNIFORM,
          "--task link: how a positive's negative destinations are drawn: uniform, degree"
              + " (proportional to in-degree^0.75) or in-batch (other positives' destinations)",
          NegativeMode::parse,
          NegativeMode.values());
  public static final OptionDef<Integer> NUM_NEGATIVES =
      OptionDef.integer("num-negatives", 1, "--task link: negatives per positive edge");
  public static final OptionDef<Integer> BATCH_SIZE =
      SharedOptions.BATCH_SIZE.withDefault(
          "1024", "seeds per mini-batch (the last may be smaller)");
  public static final OptionDef<String> FANOUTS =
      SharedOptions.FANOUTS.withDefault(
          Fanouts.format(Defaults.FANOUTS),
          "neighbors per node and hop, hop 1 (the seeds) first; -1 = all; the default matches"
              + " the trainer's default 2-layer model. Typed stores: per relation,"
              + " 'rel=10,5;other=5,3;*=10,5' (* = every relation not named; 0 = none), or one"
              + " list for every relation");
  public static final OptionDef<String> SEED_TYPE =
      OptionDef.string(
          "seed-type",
          "",
          "typed stores: the vertex type the seeds are drawn from; empty = the only labelled"
              + " type");
  public static final OptionDef<Integer> EPOCHS =
      SharedOptions.EPOCHS.withDefault("1", "epochs; each shuffles the seeds afresh");
  public static final OptionDef<Long> SEED = SharedOptions.SEED.withDefault("0", "random seed");
  public static final OptionDef<Boolean> WEIGHTED =
      SharedOptions.WEIGHTED.withDefault(
          "false",
          "sample neighbors with probability proportional to the edge weights of a store prepared"
              + " with --weight-column (zero weights never; on a typed store, relations without"
              + " weights uniformly); false = uniform");
  public static final OptionDef<InlineFeatures> FEATURES =
      OptionDef.enumeration(
          "features",
          InlineFeatures.NONE,
          "inline the feature rows of every node of a batch; none = ids only; int8, int4 and pq"
              + " copy the rows of a store of that encoding undecoded (the trainer decodes them"
              + " with the store's parameters); typed stores: the rows of every featured type,"
              + " int8, int4 and pq when every featured type keeps that encoding",
          InlineFeatures::parse,
          InlineFeatures.values());
  public static final OptionDef<SampleMode> MODE =
      OptionDef.enumeration(
          "mode",
          SampleMode.REPLICATED,
          "replicated: each task maps the whole store; partitioned: hop-by-hop joins with the"
              + " CSR partitions (same shards)",
          SampleMode::parse,
          SampleMode.values());
  public static final OptionDef<Boolean> BATCH_BY_PARTITION =
      OptionDef.bool(
          "batch-by-partition",
          false,
          "draw each batch's seeds from one store partition (batches are shuffled; at most"
              + " partitions - 1 batches per epoch straddle two), so that on a store partitioned"
              + " for locality partitioned mode answers most frontier nodes without a shuffle;"
              + " node tasks only");
  public static final OptionDef<Boolean> OVERWRITE =
      SharedOptions.OVERWRITE.withDefault(
          "false", "replace shards of a different request at --output");
  public static final OptionDef<Integer> BATCHES_PER_SHARD =
      SharedOptions.BATCHES_PER_SHARD.withDefault("64", "mini-batches per part file");
  public static final OptionDef<Integer> THREADS =
      OptionDef.integer(
          "threads", 1, "sampler threads per task in replicated mode (output does not change)");
  public static final OptionDef<ShardCompression> COMPRESSION =
      OptionDef.enumeration(
          "compression",
          ShardCompression.ZSTD,
          "Parquet page compression of the shards",
          ShardCompression::parse,
          ShardCompression.values());

  /** The older spelling of {@link SharedOptions#VERIFY}: sample checks when neither is false. */
  public static final OptionDef<Boolean> VERIFY_STORE =
      OptionDef.bool(
          "verify-store", true, "deprecated spelling of --verify; false skips the checks");

  /** Every option of {@code sample}, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          GRAPH,
          OUTPUT,
          SPLIT,
          TASK,
          NEGATIVES,
          NUM_NEGATIVES,
          BATCH_SIZE,
          FANOUTS,
          SEED_TYPE,
          EPOCHS,
          SEED,
          WEIGHTED,
          FEATURES,
          MODE,
          BATCH_BY_PARTITION,
          OVERWRITE,
          SharedOptions.IF_EXISTS,
          BATCHES_PER_SHARD,
          THREADS,
          COMPRESSION,
          SharedOptions.VERIFY,
          VERIFY_STORE);

  /**
   * Options that say how to run, not what to sample: left out of the manifest, so that the same
   * request gives the same manifest however it was run (a re-sample with {@code overwrite} keeps
   * models trained on the shards resumable).
   */
  public static final List<OptionDef<?>> NOT_RECORDED =
      List.of(OVERWRITE, SharedOptions.IF_EXISTS, THREADS, SharedOptions.VERIFY, VERIFY_STORE);

  /** Options recorded only by typed requests, so one-type requests keep their manifest. */
  public static final List<OptionDef<?>> TYPED_ONLY = List.of(SEED_TYPE);

  /** Options recorded only by link-prediction requests, so node requests keep their manifest. */
  public static final List<OptionDef<?>> LINK_ONLY = List.of(TASK, NEGATIVES, NUM_NEGATIVES);
}
