package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.when;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.conf.options.SelfLoopPolicy;
import io.fanout.store.StoreLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * Writes one relation of a typed store into its folder ({@code relations/<relation>/csr/}), as the
 * one-table prepare writes its edges: the endpoints are checked (null, or not of their type's id
 * type), given the dense ids of the source and the destination type (joined with the two types' id
 * maps in Spark SQL, or, {@code --id-lookup task} where {@link TypedIdLookup} lets the relation,
 * looked up by the csr tasks in the two types' id rank tables), routed to the partition of the
 * destination and sorted there by (destination, source); each partition's {@link EdgePartTask}
 * writes its csr file of type-local ids (and, for a relation with a weight column, its weights
 * file: values checked as the one-table {@code --weight-column}'s, sorted and merged by {@code
 * --dedupe} as there). {@code --dedupe} applies to every relation, {@code --self-loops drop} to
 * relations within one type; edges with an endpoint missing from its type dangle ({@code
 * --dangling}). With {@code --undirected} a relation within one type is symmetric: each edge but a
 * self-loop is also written reversed, with its weight, before {@code --dedupe}, as the one-table
 * {@code --undirected} writes it ({@link ReverseRelations#symmetric}).
 */
final class RelationEdgeStage {
  private static final String KEY = "_key";
  private static final String ORIG = "_orig";

  /** What was written for one relation ({@code weighted}: with its {@code weights/} files). */
  record Result(long[] edgesPerPart, long degMin, long degMax, long dangling, boolean weighted) {
    long edges() {
      long s = 0;
      for (long e : edgesPerPart) {
        s += e;
      }
      return s;
    }
  }

  private RelationEdgeStage() {}

  /**
   * Writes relation {@code r} from type {@code src} into type {@code dst} (whose files are under
   * {@code srcDir} and {@code dstDir}) into {@code dir}; {@code split} (or null) takes out the
   * held-out edges of a link-prediction split ({@link TypedLinkSplit#keptEdges}); when it reads the
   * splits from a column of {@code r}'s table, that column is checked as the one-table {@code
   * --edge-split-column} is (naming the relation, the column and a sample row). With {@code
   * taskLookup} the csr tasks look the endpoints up in the id rank tables the vertex stage wrote
   * under {@code srcDir} and {@code dstDir} (unweighted relations without a split only). {@code
   * originalChecked}: {@code r} was added as the reverse of a relation this run has already
   * checked, so its own checks (the same on the same table) are not run again.
   */
  static Result write(
      SparkSession spark,
      FanoutConf conf,
      TypedTables.RelationTable r,
      TypeVertexStage.Result src,
      Path srcDir,
      TypeVertexStage.Result dst,
      Path dstDir,
      Path dir,
      TypedLinkSplit split,
      boolean taskLookup,
      boolean originalChecked) {
    List<Check> checks = new ArrayList<>();
    List<Column> sample = new ArrayList<>();
    Dataset<Row> e = r.table();
    for (String c : CsvTables.columns(e)) {
      sample.add(col(NormalizedTables.quote(c)));
    }
    if (r.csv()) {
      sample.add(col("_metadata.file_name").as("_file"));
      checks.add(CsvTables.fieldCountCheck(e, false));
    }
    Column s = endpoint(e, r, r.srcColumn(), src.idType(), "source", checks);
    Column d = endpoint(e, r, r.dstColumn(), dst.idType(), "destination", checks);
    Dataset<Row> edges = e.withColumn(NormalizedTables.SRC, s).withColumn(NormalizedTables.DST, d);
    String splitColumn = split == null ? null : split.splitColumn(r);
    List<Column> carried =
        new ArrayList<>(List.of(col(NormalizedTables.SRC), col(NormalizedTables.DST)));
    boolean weighted = r.weightColumn() != null;
    if (weighted) {
      edges =
          edges.withColumn(
              NormalizedTables.WEIGHT,
              NormalizedTables.weight(e, r.source(), r.csv(), r.weightColumn(), checks));
      carried.add(col(NormalizedTables.WEIGHT));
    }
    if (splitColumn != null) {
      NormalizedTables.requireColumn(
          e, r.source(), splitColumn, PrepareOptions.EDGE_SPLIT_COLUMN.name());
      Column raw = col(NormalizedTables.quote(splitColumn));
      EdgeSplitColumn.addChecks(checks, splitColumn, raw);
      edges = edges.withColumn(EdgeSplitColumn.CODE, EdgeSplitColumn.code(raw));
      carried.add(col(EdgeSplitColumn.CODE));
    }
    // an added reverse's checks are its original's on the same table, endpoints swapped: when the
    // original passed them in this run, running them again would only repeat a Spark job
    if (!(r.added() && originalChecked && splitColumn == null)) {
      InputValidation.runChecks(r.source(), edges, checks, sample);
    }
    if (splitColumn != null) {
      EdgeSplitColumn.checkPairsAgree(edges, r.source(), splitColumn, split.symmetric);
    }

    List<Row> meta =
        taskLookup
            ? lookingUpIds(conf, r, edges, src, srcDir, dst, dstDir, dir)
            : joiningIds(
                spark, conf, r, edges, carried, weighted, src, srcDir, dst, dstDir, dir, split);
    CsrReport csr = CsrReport.of(meta, dst.counts(), dst.parts());
    csr.requireNoDangling(
        conf,
        r.source(),
        r.srcColumn(),
        r.dstColumn(),
        "the vertex tables of types '" + r.srcType() + "' and '" + r.dstType() + "'");
    long degMin = csr.degMin;
    for (int p = 0; p < dst.parts(); p++) {
      if (!csr.written[p]
          && EmptyPartitionFiles.csr(dir, p, dst.firsts()[p], dst.counts()[p], weighted)) {
        degMin = 0;
      }
    }
    return new Result(
        csr.edgesPerPart, dst.vertices() == 0 ? 0 : degMin, csr.degMax, csr.dangling, weighted);
  }

  /**
   * The edge stage when Spark joins the endpoints with the id maps of the source and destination
   * types: the csr tasks' metadata rows.
   */
  private static List<Row> joiningIds(
      SparkSession spark,
      FanoutConf conf,
      TypedTables.RelationTable r,
      Dataset<Row> edges,
      List<Column> carried,
      boolean weighted,
      TypeVertexStage.Result src,
      Path srcDir,
      TypeVertexStage.Result dst,
      Path dstDir,
      Path dir,
      TypedLinkSplit split) {
    Dataset<Row> sids =
        ids(spark, conf, srcDir, src).select(col("id").as("_sid"), col("dense_id").as("_sd"));
    Dataset<Row> dids =
        ids(spark, conf, dstDir, dst)
            .select(
                col("id").as("_did"),
                col("dense_id").as("_dd"),
                EdgeFileStage.partitionOf(dst.firsts()).apply(col("dense_id")).as("_dp"));
    Dataset<Row> joined =
        edges
            .select(carried.toArray(new Column[0]))
            .join(sids, col(NormalizedTables.SRC).equalTo(col("_sid")), "left")
            .join(dids, col(NormalizedTables.DST).equalTo(col("_did")), "left");
    Column dangling = col("_sd").isNull().or(col("_dd").isNull());
    if (r.srcType().equals(r.dstType())
        && conf.get(PrepareOptions.SELF_LOOPS) == SelfLoopPolicy.DROP) {
      joined = joined.where(dangling.or(col("_sd").notEqual(col("_dd"))));
    }
    if (split != null) {
      joined = split.keptEdges(r, joined);
    }
    Column orig =
        when(
            dangling,
            concat_ws(
                " -> ",
                col(NormalizedTables.SRC).cast("string"),
                col(NormalizedTables.DST).cast("string")));
    List<Column> fields =
        new ArrayList<>(
            List.of(
                when(dangling, lit(-1)).otherwise(col("_dp")).as(PrepareJob.PART),
                EdgeFileStage.edgeKey(dangling, col("_dd"), col("_sd")).as(KEY),
                orig.as(ORIG)));
    if (weighted) {
      fields.add(col(NormalizedTables.WEIGHT));
    }
    Dataset<Row> keyed;
    if (ReverseRelations.symmetric(conf.get(PrepareOptions.UNDIRECTED), r)) {
      keyed = bothDirections(joined, fields, dangling, dst, weighted);
    } else {
      keyed = joined.select(fields.toArray(new Column[0]));
    }
    // Weighted relations sort repeated edges by weight too, in Spark, as one-table stores do, so
    // their weights (and --dedupe's sums) do not depend on the shuffle's order.
    boolean sortInTask = !weighted && PrepareJob.sortsEdgesInTask(conf);
    Dataset<Row> routed =
        weighted
            ? Routing.byPartition(keyed, PrepareJob.PART, dst.parts(), KEY, NormalizedTables.WEIGHT)
            : sortInTask
                ? Routing.shuffle(keyed, PrepareJob.PART, dst.parts())
                : Routing.byPartition(keyed, PrepareJob.PART, dst.parts(), KEY);
    return EdgeFileStage.writeCsr(
        routed,
        new EdgePartTask(
            dir.toAbsolutePath().toString(),
            dst.firsts(),
            dst.counts(),
            conf.get(PrepareOptions.DEDUPE),
            r.weightColumn(),
            sortInTask,
            0,
            null,
            false));
  }

  /**
   * The rows {@code fields} of each edge of a relation within one type that {@code --undirected}
   * makes symmetric, then those of its reverse {@code v -> u} (in the partition of {@code v}, the
   * same weight), but for dangling edges and self-loops: as the one-table {@code --undirected}
   * expands its edges, in one pass.
   */
  private static Dataset<Row> bothDirections(
      Dataset<Row> joined,
      List<Column> fields,
      Column dangling,
      TypeVertexStage.Result type,
      boolean weighted) {
    List<Column> reverse =
        new ArrayList<>(
            List.of(
                EdgeFileStage.partitionOf(type.firsts()).apply(col("_sd")).as(PrepareJob.PART),
                EdgeFileStage.edgeKey(lit(false), col("_sd"), col("_dd")).as(KEY),
                lit(null).cast("string").as(ORIG)));
    List<Column> names = new ArrayList<>();
    for (String f : List.of(PrepareJob.PART, KEY, ORIG)) {
      names.add(col("_e." + f));
    }
    if (weighted) {
      reverse.add(col(NormalizedTables.WEIGHT));
      names.add(col("_e." + NormalizedTables.WEIGHT));
    }
    Column twin =
        when(
            dangling.unary_$bang().and(col("_sd").notEqual(col("_dd"))),
            struct(reverse.toArray(new Column[0])));
    return EdgeFileStage.bothDirections(joined, struct(fields.toArray(new Column[0])), twin)
        .select(names.toArray(new Column[0]));
  }

  /**
   * The edge stage of {@code --id-lookup task} ({@link TypedIdLookup}): the edges in original ids,
   * packed into {@link EdgeBlocks} for the partition of their destination ({@link EdgeRouter}, the
   * hash partitioner's function with the destination type's id type) and shuffled once to the
   * {@link EdgePartTask} that finds destinations in the destination type's id rank tables and
   * sources in the source type's. The csr tasks' metadata rows.
   */
  private static List<Row> lookingUpIds(
      FanoutConf conf,
      TypedTables.RelationTable r,
      Dataset<Row> edges,
      TypeVertexStage.Result src,
      Path srcDir,
      TypeVertexStage.Result dst,
      Path dstDir,
      Path dir) {
    boolean srcLong = src.idType().equals("long");
    boolean dstLong = dst.idType().equals("long");
    boolean dropSelfLoops =
        r.srcType().equals(r.dstType())
            && conf.get(PrepareOptions.SELF_LOOPS) == SelfLoopPolicy.DROP;
    EdgePartTask task =
        new EdgePartTask(
            dir.toAbsolutePath().toString(),
            dst.firsts(),
            dst.counts(),
            conf.get(PrepareOptions.DEDUPE),
            null,
            true,
            0,
            new EndpointLookup(dstDir.toAbsolutePath().toString(), dst.firsts(), dstLong),
            new EndpointLookup(srcDir.toAbsolutePath().toString(), src.firsts(), srcLong),
            dropSelfLoops);
    return edges
        .select(col(NormalizedTables.SRC), col(NormalizedTables.DST))
        .queryExecution()
        .toRdd()
        .toJavaRDD()
        .mapPartitionsToPair(
            new EdgeRouter(
                dst.parts(),
                srcLong,
                dstLong,
                ReverseRelations.symmetric(conf.get(PrepareOptions.UNDIRECTED), r)))
        .partitionBy(new EdgeRouter.ByPartition(dst.parts()))
        .values()
        .mapPartitions(task.onBlocks())
        .collect();
  }

  /**
   * The endpoint column {@code column} as its type's id type ({@code idType}), adding the checks
   * that refuse null endpoints and endpoints that are not ids of that type.
   */
  private static Column endpoint(
      Dataset<Row> e,
      TypedTables.RelationTable r,
      String column,
      String idType,
      String role,
      List<Check> checks) {
    Column raw = col(NormalizedTables.quote(column));
    DataType want = idType(idType);
    Column v = converted(e, r, column, idType);
    String type = role.equals("source") ? r.srcType() : r.dstType();
    String idSql = want.sql().toLowerCase(java.util.Locale.ROOT);
    checks.add(new Check(column, "a null " + role, "a non-null vertex id", raw.isNull()));
    checks.add(
        new Check(
            column,
            "a " + role + " that is not a valid " + idSql + " id",
            "ids of type '" + type + "', whose ids are " + idSql,
            raw.isNotNull().and(v.isNull())));
    return v;
  }

  /**
   * The endpoint column {@code column} of {@code r}'s table as its type's id type ({@code idType}:
   * long, int or string); null where it is null or not such an id.
   */
  static Column converted(
      Dataset<Row> e, TypedTables.RelationTable r, String column, String idType) {
    Column raw = col(NormalizedTables.quote(column));
    return NormalizedTables.convert(raw, NormalizedTables.type(e, column), idType(idType), r.csv());
  }

  private static DataType idType(String name) {
    return switch (name) {
      case "long" -> DataTypes.LongType;
      case "int" -> DataTypes.IntegerType;
      default -> DataTypes.StringType;
    };
  }

  /** The id map {@code (id, dense_id)} the vertex stage wrote for a type, hinted for the join. */
  static Dataset<Row> ids(
      SparkSession spark, FanoutConf conf, Path typeDir, TypeVertexStage.Result t) {
    Dataset<Row> ids =
        IdMapTable.read(spark, typeDir.resolve(StoreLayout.IDMAP_DIR), t.idType())
            .select(col("id"), col("dense_id"));
    long n = t.vertices();
    if (n <= conf.get(PrepareOptions.BROADCAST_VERTICES)) {
      return org.apache.spark.sql.functions.broadcast(ids);
    }
    if (!EdgeFileStage.broadcastable(spark, n)) {
      return ids.hint("shuffle_hash");
    }
    return ids;
  }
}
