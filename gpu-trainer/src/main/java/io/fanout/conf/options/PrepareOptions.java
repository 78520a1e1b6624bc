package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.Task;
import io.fanout.graph.PartitionerKind;
import java.util.List;

/**
 * Options of {@code prepare}, for the command line ({@code --name value}), the Java API ({@code
 * .option(name, value)}) and the session ({@code spark.fanout.<name>}).
 */
public final class PrepareOptions {
  private PrepareOptions() {}

  /**
   * The edge split fractions {@code --task link} implies when {@code --edge-split} is not given.
   */
  public static final String DEFAULT_EDGE_SPLIT = "0.85,0.05,0.10";

  public static final OptionDef<String> VERTICES =
      OptionDef.string(
          "vertices", "", "vertex table path (Parquet or CSV); not used with the DataFrame API");
  public static final OptionDef<String> EDGES =
      OptionDef.string(
          "edges", "", "edge table path (Parquet or CSV); not used with the DataFrame API");
  public static final OptionDef<String> GRAPH_SPEC =
      OptionDef.string(
          "graph-spec",
          "",
          "JSON description of a typed graph: its vertex types and relations, each with its table"
              + " path, format and columns (docs/prepare.md, typed graphs), or a dataset folder"
              + " with a schema.json (hgb_acm); instead of --vertices and --edges");
  public static final OptionDef<TableFormat> FORMAT =
      OptionDef.enumeration(
          "format",
          TableFormat.PARQUET,
          "format of the input paths",
          TableFormat::parse,
          TableFormat.values());
  public static final OptionDef<String> OUTPUT =
      SharedOptions.OUTPUT.withDefault(null, "graph store directory to write");
  public static final OptionDef<Boolean> OVERWRITE =
      SharedOptions.OVERWRITE.withDefault(
          "false", "replace a complete store prepared from other inputs or options");
  public static final OptionDef<String> ID_COLUMN =
      OptionDef.string("id-column", "id", "vertex id column (long, int or string)");
  public static final OptionDef<String> SRC_COLUMN =
      SharedOptions.SRC_COLUMN.withDefault("src", "edge source column");
  public static final OptionDef<String> DST_COLUMN =
      SharedOptions.DST_COLUMN.withDefault("dst", "edge destination column");
  public static final OptionDef<String> FEATURES_COLUMN =
      OptionDef.string(
          "features-column",
          "features",
          "vertex feature column: array<float>, array<double> or ML Vector; optional when left at"
              + " the default");
  public static final OptionDef<String> LABEL_COLUMN =
      OptionDef.string(
          "label-column",
          "label",
          "vertex label column (integer, -1 = unlabeled); optional when left at the default");
  public static final OptionDef<String> LABELS_COLUMN =
      OptionDef.string(
          "labels-column",
          "",
          "typed graphs: vertex column of integer arrays, each vertex's set of classes (multi-label"
              + " targets; null or empty = unlabeled), instead of --label-column; empty = none");
  public static final OptionDef<String> SPLIT_COLUMN =
      OptionDef.string(
          "split-column",
          "split",
          "vertex split column (train, val, test, none); optional when left at the default");
  public static final OptionDef<String> WEIGHT_COLUMN =
      OptionDef.string(
          "weight-column",
          "",
          "numeric edge column stored as a float32 weight per edge (finite, >= 0) for sample"
              + " --weighted; typed graphs: the column of every relation whose table has it (a"
              + " relation's weight_column in --graph-spec wins); empty = no weights");
  public static final OptionDef<Task> TASK =
      SharedOptions.TASK.withDefault(
          "node",
          "what the store is for: node (node classification) or link (link prediction; implies"
              + " --edge-split "
              + DEFAULT_EDGE_SPLIT
              + " unless given)");
  public static final OptionDef<String> EDGE_SPLIT =
      OptionDef.string(
          "edge-split",
          "",
          "TRAIN,VAL,TEST fractions of the edges (summing to 1) for link prediction: val and test"
              + " edges are left out of the graph and stored with seeded negatives; empty = no"
              + " split (with --task link: "
              + DEFAULT_EDGE_SPLIT
              + ")");
  public static final OptionDef<String> EDGE_SPLIT_COLUMN =
      OptionDef.string(
          "edge-split-column",
          "",
          "edge column (train, val, test) giving each edge's split for link prediction instead of"
              + " --edge-split fractions (typed graphs: a column of the --link-relation's table);"
              + " every edge of a pair (both directions with --undirected) must carry the same"
              + " value; empty = none");
  public static final OptionDef<Long> EDGE_SPLIT_SEED =
      OptionDef.longValue("edge-split-seed", 0, "seed of the edge split and its negatives");
  public static final OptionDef<Integer> EDGE_SPLIT_NEGATIVES =
      OptionDef.integer(
          "edge-split-negatives",
          1,
          "negative pairs stored per val/test positive (the destination replaced by a random"
              + " vertex that is not a neighbor)");
  public static final OptionDef<String> LINK_RELATION =
      OptionDef.string(
          "link-relation",
          "",
          "typed graphs: the relation whose edges --task link splits (val and test edges leave it"
              + " and its reverse); empty = none");
  public static final OptionDef<Boolean> UNDIRECTED =
      OptionDef.bool(
          "undirected",
          false,
          "add the reverse of every edge (typed graphs: a relation within one type gets them in"
              + " itself; one between two types gets relation rev_NAME as --add-reverse adds it,"
              + " unless it has a reverse)");
  public static final OptionDef<Boolean> ADD_REVERSE =
      OptionDef.bool(
          "add-reverse",
          false,
          "typed graphs: add relation rev_NAME, the flip of relation NAME, for every relation that"
              + " has no reverse (one whose spec declares it with reverse_of, or that is declared"
              + " the reverse of another)");
  public static final OptionDef<Boolean> DEDUPE =
      OptionDef.bool("dedupe", false, "keep one copy of repeated edges");
  public static final OptionDef<SelfLoopPolicy> SELF_LOOPS =
      OptionDef.enumeration(
          "self-loops",
          SelfLoopPolicy.KEEP,
          "what to do with edges v -> v",
          SelfLoopPolicy::parse,
          SelfLoopPolicy.values());
  public static final OptionDef<DanglingPolicy> DANGLING =
      OptionDef.enumeration(
          "dangling",
          DanglingPolicy.ERROR,
          "edges whose endpoint is not a vertex: fail, or drop and count them",
          DanglingPolicy::parse,
          DanglingPolicy.values());
  public static final OptionDef<Integer> PARTITIONS =
      OptionDef.integer(
          "partitions", 0, "number of partitions; 0 = one per 500,000 vertices, at least 1");
  public static final OptionDef<PartitionerKind> PARTITIONER =
      OptionDef.enumeration(
          "partitioner",
          PartitionerKind.HASH,
          "how vertices are assigned to partitions",
          PartitionerKind::parse,
          PartitionerKind.values(),
          PartitionerKind::id);

  public static final OptionDef<Long> PARTITION_SEED =
      OptionDef.longValue(
          "partition-seed", 0, "seed of --partitioner multilevel (same seed, same assignment)");
  public static final OptionDef<Integer> PARTITION_COARSE_VERTICES =
      OptionDef.integer(
          "partition-coarse-vertices",
          5000,
          "--partitioner multilevel coarsens the graph until at most this many vertices remain"
              + " (in Spark, and in the driver once a level has at most 250,000 vertices and"
              + " 2,000,000 edge rows), then partitions that coarse graph in the driver");

  public static final OptionDef<Long> BROADCAST_VERTICES =
      OptionDef.longValue(
          "broadcast-vertices",
          0,
          "broadcast id maps of at most this many vertices for the edge endpoint joins; 0 = let"
              + " Spark decide (spark.sql.autoBroadcastJoinThreshold)");

  public static final OptionDef<EdgeSort> EDGE_SORT =
      OptionDef.enumeration(
          "edge-sort",
          EdgeSort.TASK,
          "how edges are ordered by destination for the csr files: task = a counting sort in each"
              + " csr-writing task (fastest on CPUs; a partition's edges must fit in its memory),"
              + " sql = Spark SQL's sort (spills; the stage a GPU SQL plugin can run); same store"
              + " bytes. Weighted stores always sort in Spark SQL",
          EdgeSort::parse,
          EdgeSort.values());

  public static final OptionDef<IdLookup> ID_LOOKUP =
      OptionDef.enumeration(
          "id-lookup",
          IdLookup.AUTO,
          "how edge endpoints get their dense ids: task = each csr-writing task looks them up in"
              + " hash tables the vertex tasks wrote (no join, one shuffle of the edges; hash"
              + " partitioner, int or long ids, unweighted edges, --edge-sort task, no held-out"
              + " edges), sql = Spark SQL joins the edges with the id map (the stage a GPU SQL"
              + " plugin can run), auto = task where it applies, else sql; same store bytes",
          IdLookup::parse,
          IdLookup.values());

  public static final OptionDef<Boolean> DRY_RUN =
      OptionDef.bool(
          "dry-run",
          false,
          "print the plan (partitions and their expected sizes, disk for the store and for shuffle,"
              + " executor memory per stage) from the inputs' row counts and the options; write"
              + " nothing");
  public static final OptionDef<Boolean> SKIP_SPACE_CHECK =
      OptionDef.bool(
          "skip-space-check",
          false,
          "start even when the plan needs more disk than the output's (or the shuffle's) file"
              + " system has free");

  /**
   * {@code --feature-encoding} for all vertex types or per type ({@code paper=f16,author=f32});
   * one-table stores take one value.
   */
  public static final OptionDef<io.fanout.conf.PerType<io.fanout.store.StoreFeatureEncoding>>
      FEATURE_ENCODING =
          QuantizeOptions.FEATURE_ENCODING.perType(
              "how the store keeps feature rows: float32, half precision, per-column affine 8 or 4"
                  + " bits, or product quantization; typed graphs: one value for every type, or"
                  + " per type TYPE=ENC,... (a value without TYPE= for the types not named)");

  /**
   * The order of the feature rows inside each partition's file ({@code prepare} and {@code
   * quantize}); recorded in the store only when it is not identity.
   */
  public static final OptionDef<io.fanout.store.FeatureLayoutKind> FEATURE_LAYOUT =
      OptionDef.enumeration(
          "feature-layout",
          io.fanout.store.FeatureLayoutKind.IDENTITY,
          "order of the feature rows inside each partition's file: identity (at their ids),"
              + " neighborhood (each training vertex followed by its two-hop in-neighbors, then"
              + " every row moved to the group most of its in-neighbors are in) or seed-groups"
              + " (each training vertex followed by its two-hop in-neighbors not placed yet, then"
              + " the rows no training vertex reaches: for sparse training splits); on a typed graph,"
              + " per featured type, seed-groups orders rows by first use from the labelled type's"
              + " training seeds over every relation and neighborhood regroups that order by the"
              + " groups of the vertices that draw each row; readers map ids through the recorded"
              + " order",
          io.fanout.store.FeatureLayoutKind::parse,
          io.fanout.store.FeatureLayoutKind.values(),
          io.fanout.store.FeatureLayoutKind::id);

  /** Records the layout among a store's options only when it is not identity. */
  public static void pruneRecordedLayout(
      java.util.Map<String, String> recorded, io.fanout.store.FeatureLayoutKind layout) {
    if (layout == io.fanout.store.FeatureLayoutKind.IDENTITY) {
      recorded.remove(FEATURE_LAYOUT.name());
    }
  }

  public static final List<OptionDef<?>> ALL =
      List.of(
          VERTICES,
          EDGES,
          GRAPH_SPEC,
          FORMAT,
          OUTPUT,
          OVERWRITE,
          SharedOptions.IF_EXISTS,
          ID_COLUMN,
          SRC_COLUMN,
          DST_COLUMN,
          WEIGHT_COLUMN,
          FEATURES_COLUMN,
          LABEL_COLUMN,
          LABELS_COLUMN,
          SPLIT_COLUMN,
          TASK,
          EDGE_SPLIT,
          EDGE_SPLIT_COLUMN,
          EDGE_SPLIT_SEED,
          EDGE_SPLIT_NEGATIVES,
          LINK_RELATION,
          UNDIRECTED,
          ADD_REVERSE,
          DEDUPE,
          SELF_LOOPS,
          DANGLING,
          PARTITIONS,
          PARTITIONER,
          PARTITION_SEED,
          PARTITION_COARSE_VERTICES,
          BROADCAST_VERTICES,
          EDGE_SORT,
          ID_LOOKUP,
          DRY_RUN,
          SKIP_SPACE_CHECK,
          FEATURE_ENCODING,
          QuantizeOptions.PQ_GROUP_SIZE,
          QuantizeOptions.PQ_SAMPLE_ROWS,
          QuantizeOptions.PQ_SEED,
          FEATURE_LAYOUT);

  /** Options left out of the recorded options of stores without an edge split. */
  public static final List<OptionDef<?>> EDGE_SPLIT_OPTIONS =
      List.of(TASK, EDGE_SPLIT, EDGE_SPLIT_COLUMN, EDGE_SPLIT_SEED, EDGE_SPLIT_NEGATIVES);

  /** Options that say where, not what: left out of the manifest's recorded options. */
  public static final List<OptionDef<?>> NOT_RECORDED =
      List.of(
          VERTICES,
          EDGES,
          GRAPH_SPEC,
          OUTPUT,
          OVERWRITE,
          SharedOptions.IF_EXISTS,
          BROADCAST_VERTICES,
          EDGE_SORT,
          ID_LOOKUP,
          DRY_RUN,
          SKIP_SPACE_CHECK);

  /** Options of typed graphs only, left out of the recorded options of one-table stores. */
  public static final List<OptionDef<?>> TYPED_ONLY =
      List.of(ADD_REVERSE, LABELS_COLUMN, LINK_RELATION);

  /** Options recorded only for a graph partitioner: hash and range stores keep their manifest. */
  public static final List<OptionDef<?>> GRAPH_PARTITIONER_ONLY =
      List.of(PARTITION_SEED, PARTITION_COARSE_VERTICES);

  /** Vertices per partition when {@code --partitions 0}. */
  public static final long AUTO_VERTICES_PER_PARTITION = 500_000L;

  /** The partitions of {@code vertices} when {@code --partitions 0}: at least one. */
  public static int autoPartitions(long vertices) {
    return (int)
        Math.max(1, (vertices + AUTO_VERTICES_PER_PARTITION - 1) / AUTO_VERTICES_PER_PARTITION);
  }
}
