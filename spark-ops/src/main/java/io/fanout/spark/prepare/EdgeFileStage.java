package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.udf;
import static org.apache.spark.sql.functions.when;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.conf.options.SelfLoopPolicy;
import io.fanout.store.StoreLayout;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.DataTypes;

/**
 * The edge stage of {@code prepare}: gives the edge endpoints their dense ids, expands and cleans
 * the edges per the options, routes them to the partition of their destination and runs the {@link
 * EdgePartTask}s that write the {@code csr/} files. Returns the tasks' metadata rows (see {@link
 * CsrReport}).
 *
 * <p>With an edge split, {@link #writeJoiningIds} also keeps the joined edges and the id map for
 * the held-out stage ({@link #heldOutInput()}, {@link #heldOutIds()}).
 */
final class EdgeFileStage {
  private static final String KEY = "_key";
  private static final String WEIGHT = "_weight";
  private static final String PART = PrepareJob.PART;
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PrepareJob.class);

  private final SparkSession spark;
  private final FanoutConf conf;
  private final EdgeSplitPlan edgeSplit;
  private Dataset<Row> heldOutInput;
  private Dataset<Row> heldOutIds;

  /**
   * @param edgeSplit the held-out edge split, or null when the run has none
   */
  EdgeFileStage(SparkSession spark, FanoutConf conf, EdgeSplitPlan edgeSplit) {
    this.spark = spark;
    this.conf = conf;
    this.edgeSplit = edgeSplit;
  }

  /**
   * The joined, non-dangling edges with their split codes; null before {@link #writeJoiningIds}.
   */
  Dataset<Row> heldOutInput() {
    return heldOutInput;
  }

  /** The id map the edges were joined with; null before {@link #writeJoiningIds}. */
  Dataset<Row> heldOutIds() {
    return heldOutIds;
  }

  /**
   * The edge stage when Spark joins the endpoints with the id map the vertex stage wrote under
   * {@code staging}.
   */
  List<Row> writeJoiningIds(
      NormalizedTables t,
      Path staging,
      String stagingDir,
      long[] firsts,
      long[] counts,
      int parts) {
    UserDefinedFunction partOf = partitionOf(firsts);
    Dataset<Row> idmap =
        IdMapTable.read(spark, staging.resolve(StoreLayout.IDMAP_DIR), t.idTypeName());
    Dataset<Row> ids =
        idmap.select(col("id"), col("dense_id"), partOf.apply(col("dense_id")).as("p"));
    if (firsts[parts] <= conf.get(PrepareOptions.BROADCAST_VERTICES)) { // 0: Spark decides
      ids = org.apache.spark.sql.functions.broadcast(ids);
    } else if (!broadcastable(firsts[parts])) {
      // A shuffled hash join builds a hash table of one id-map partition per task and streams the
      // edges through it: unlike a sort-merge join it does not sort the edges by each endpoint,
      // and the edges are sorted by destination once, below, whatever order the joins leave.
      ids = ids.hint("shuffle_hash");
    }
    Dataset<Row> s =
        ids.select(col("id").as("_sid"), col("dense_id").as("_sd"), col("p").as("_sp"));
    Dataset<Row> d =
        ids.select(col("id").as("_did"), col("dense_id").as("_dd"), col("p").as("_dp"));
    Column weight = t.weighted ? col(NormalizedTables.WEIGHT) : lit(null).cast("float");
    Dataset<Row> e =
        t.edges
            .select(
                col(NormalizedTables.SRC),
                col(NormalizedTables.DST),
                weight.as(WEIGHT),
                t.edgeSplitColumn != null
                    ? col(EdgeSplitColumn.CODE)
                    : lit(null).cast("int").as(EdgeSplitColumn.CODE))
            .join(s, col(NormalizedTables.SRC).equalTo(col("_sid")), "left")
            .join(d, col(NormalizedTables.DST).equalTo(col("_did")), "left");
    Column dangling = col("_sd").isNull().or(col("_dd").isNull());
    Column loop = col("_sd").equalTo(col("_dd"));
    if (conf.get(PrepareOptions.SELF_LOOPS) == SelfLoopPolicy.DROP) {
      e = e.where(dangling.or(loop.unary_$bang()));
    }
    if (edgeSplit != null) {
      // val and test edges leave the graph; dangling ones stay to be reported
      e =
          e.withColumn(
              EdgeSplitPlan.CODE,
              edgeSplit.code(
                  col(NormalizedTables.SRC),
                  col(NormalizedTables.DST),
                  loop,
                  conf.get(PrepareOptions.UNDIRECTED)));
      heldOutInput = e.where(dangling.unary_$bang());
      heldOutIds = ids;
      e = e.where(dangling.or(col(EdgeSplitPlan.CODE).equalTo(lit(EdgeSplitPlan.TRAIN))));
    }
    Column orig =
        when(
            dangling,
            concat_ws(
                " -> ",
                col(NormalizedTables.SRC).cast("string"),
                col(NormalizedTables.DST).cast("string")));
    Column forward =
        org.apache.spark.sql.functions.struct(
            when(dangling, lit(-1)).otherwise(col("_dp")).as(PART),
            edgeKey(dangling, col("_dd"), col("_sd")).as(KEY),
            orig.as("_orig"),
            col(WEIGHT));
    // unweighted stores shuffle and sort no weight column
    Column[] fields =
        t.weighted
            ? new Column[] {
              col("_e." + PART), col("_e." + KEY), col("_e._orig"), col("_e." + WEIGHT)
            }
            : new Column[] {col("_e." + PART), col("_e." + KEY), col("_e._orig")};
    Dataset<Row> all;
    if (conf.get(PrepareOptions.UNDIRECTED)) {
      // both directions from one pass over the joined edges
      Column reverse =
          when(
              dangling.unary_$bang().and(loop.unary_$bang()),
              org.apache.spark.sql.functions.struct(
                  col("_sp").as(PART),
                  edgeKey(lit(false), col("_sd"), col("_dd")).as(KEY),
                  lit(null).cast("string").as("_orig"),
                  col(WEIGHT)));
      all = bothDirections(e, forward, reverse).select(fields);
    } else {
      all = e.select(forward.as("_e")).select(fields);
    }
    // One long sort key, (destination << 32 | source), orders each partition's edges. Either the
    // csr-writing task counting-sorts the keys it receives (no Spark sort of the rows), or Spark
    // radix-sorts the rows by it (partitions own ascending dense-id ranges, so that also groups the
    // rows by partition). Weighted stores sort repeated edges by weight too, in Spark, so their
    // weights (and --dedupe's sums) do not depend on the shuffle's order.
    boolean sortInTask = !t.weighted && PrepareJob.sortsEdgesInTask(conf);
    Dataset<Row> routed =
        t.weighted
            ? Routing.byPartition(all, PART, parts, KEY, WEIGHT)
            : sortInTask
                ? Routing.shuffle(all, PART, parts)
                : Routing.byPartition(all, PART, parts, KEY);
    return writeCsr(
        routed,
        new EdgePartTask(
            stagingDir,
            firsts,
            counts,
            conf.get(PrepareOptions.DEDUPE),
            t.weighted ? conf.get(PrepareOptions.WEIGHT_COLUMN) : null,
            sortInTask,
            0,
            null,
            false));
  }

  /**
   * The partition owning a dense id, for partitions starting at {@code firsts} (its last element
   * the total); -1 for null.
   */
  static UserDefinedFunction partitionOf(long[] firsts) {
    long[] starts = firsts.clone();
    return udf(
        (UDF1<Integer, Integer>)
            d -> {
              if (d == null) {
                return -1;
              }
              int lo = 0;
              int hi = starts.length - 2;
              while (lo < hi) {
                int mid = (lo + hi + 1) >>> 1;
                if (starts[mid] <= d) {
                  lo = mid;
                } else {
                  hi = mid - 1;
                }
              }
              return lo;
            },
        DataTypes.IntegerType);
  }

  /**
   * Column {@code _e} holding {@code forward}, then {@code reverse} unless it is null, of each row
   * of {@code edges}: one pass over the edges for both directions.
   */
  static Dataset<Row> bothDirections(Dataset<Row> edges, Column forward, Column reverse) {
    return edges
        .select(
            org.apache
                .spark
                .sql
                .functions
                .explode(org.apache.spark.sql.functions.array(forward, reverse))
                .as("_e"))
        .where(col("_e").isNotNull());
  }

  /** Runs {@code task} over the rows of {@code routed}: the csr files, and their metadata rows. */
  static List<Row> writeCsr(Dataset<Row> routed, EdgePartTask task) {
    if (LOG.isDebugEnabled()) {
      LOG.debug("prepare: edge plan\n{}", routed.queryExecution().executedPlan().treeString());
    }
    return routed.queryExecution().toRdd().toJavaRDD().mapPartitions(task).collect();
  }

  /**
   * The edge stage of {@code --id-lookup task}: the edges in original ids, both directions of each
   * when undirected, packed into {@link EdgeBlocks} for the partition of their destination (the
   * hash partitioner's own function) and shuffled once, a block a record, to the {@link
   * EdgePartTask} that finds the dense ids in the {@link io.fanout.store.IdRankTable}s of the
   * vertex stage. No join, no id-map read, no per-edge shuffle record.
   */
  List<Row> writeLookingUpIds(
      NormalizedTables t, String stagingDir, long[] firsts, long[] counts, int parts) {
    boolean longIds = t.idTypeName().equals("long");
    EdgePartTask task =
        new EdgePartTask(
            stagingDir,
            firsts,
            counts,
            conf.get(PrepareOptions.DEDUPE),
            null,
            true,
            0,
            new EndpointLookup(stagingDir, firsts, longIds),
            conf.get(PrepareOptions.SELF_LOOPS) == SelfLoopPolicy.DROP);
    return t.edges
        .select(col(NormalizedTables.SRC), col(NormalizedTables.DST))
        .queryExecution()
        .toRdd()
        .toJavaRDD()
        .mapPartitionsToPair(new EdgeRouter(parts, longIds, conf.get(PrepareOptions.UNDIRECTED)))
        .partitionBy(new EdgeRouter.ByPartition(parts))
        .values()
        .mapPartitions(task.onBlocks())
        .collect();
  }

  /**
   * Whether Spark may broadcast an id map of {@code vertices} rows on its own: its size estimate
   * (about 16 bytes a row of {@code id, dense_id, p}) is under {@code
   * spark.sql.autoBroadcastJoinThreshold}. Larger maps are joined by shuffled hash joins.
   */
  private boolean broadcastable(long vertices) {
    return broadcastable(spark, vertices);
  }

  /** {@link #broadcastable(long)} in {@code spark}'s session. */
  static boolean broadcastable(SparkSession spark, long vertices) {
    long threshold = spark.sessionState().conf().autoBroadcastJoinThreshold();
    return threshold >= 0 && vertices <= threshold / 16;
  }

  /** {@code dst << 32 | src} for an edge src -> dst in dense ids; -1 for dangling edges. */
  static Column edgeKey(Column dangling, Column dst, Column src) {
    return when(dangling, lit(-1L))
        .otherwise(
            org.apache
                .spark
                .sql
                .functions
                .shiftleft(dst.cast("long"), 32)
                .bitwiseOR(src.cast("long")));
  }
}
