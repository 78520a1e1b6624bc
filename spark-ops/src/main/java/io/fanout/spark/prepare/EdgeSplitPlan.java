package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.explode;
import static org.apache.spark.sql.functions.greatest;
import static org.apache.spark.sql.functions.least;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.row_number;
import static org.apache.spark.sql.functions.sequence;
import static org.apache.spark.sql.functions.shiftrightunsigned;
import static org.apache.spark.sql.functions.when;
import static org.apache.spark.sql.functions.xxhash64;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.Task;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Locale;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.expressions.Window;

/**
 * {@code prepare --edge-split TRAIN,VAL,TEST} (or {@code --edge-split-column C}, see {@link
 * EdgeSplitColumn}): which edges are held out for link prediction, and the held-out edge lists with
 * their seeded negatives.
 *
 * <p>An edge's split is drawn from {@code xxhash64(seed, lo, hi)} of its endpoints' original ids
 * ({@code lo}/{@code hi} ordered for {@code --undirected}, so both directions of a pair share it):
 * it depends on the pair and the seed only, not on partitioning or order. Self-loops stay in
 * training. Val and test edges are left out of the CSR and written as edge lists, one row per pair
 * (per undirected pair when {@code --undirected}, smaller dense id first), followed by {@code k}
 * negatives per positive: its source paired with uniformly drawn vertices, skipping the source
 * itself, its neighbors in the whole input graph and pairs already drawn for an earlier positive,
 * keeping the first {@code k} of {@code 2k + 4} counter-hashed draws.
 *
 * <p>In a typed store ({@code --link-relation R}) the same plan splits relation {@code R}: the
 * destinations of its negatives are drawn from {@code R}'s destination type, and its held-out edges
 * go to {@code relations/R/edgesplit/} ({@link TypedLinkSplit}).
 */
final class EdgeSplitPlan {
  static final String DEFAULT_FRACTIONS = PrepareOptions.DEFAULT_EDGE_SPLIT;
  static final int TRAIN = 0;
  static final int VAL = 1;
  static final int TEST = 2;

  /** The split code column added to the joined edges. */
  static final String CODE = "_esplit";

  /** The fractions, or null when the splits come from {@link #column}. */
  final double[] fractions;

  /** {@code --edge-split-column}, or null when the splits are drawn from {@link #fractions}. */
  final String column;

  final long seed;
  final int negatives;

  private EdgeSplitPlan(double[] fractions, String column, long seed, int negatives) {
    this.fractions = fractions;
    this.column = column;
    this.seed = seed;
    this.negatives = negatives;
  }

  /** The plan the options ask for, or null when the edges are not split. */
  static EdgeSplitPlan of(FanoutConf conf) {
    return of(conf, false);
  }

  /**
   * The plan the options ask for; {@code link}: the store is for link prediction whatever {@code
   * --task} says (a typed store's {@code --link-relation}), so the default fractions apply.
   */
  static EdgeSplitPlan of(FanoutConf conf, boolean link) {
    String spec = conf.get(PrepareOptions.EDGE_SPLIT).trim();
    String column = conf.get(PrepareOptions.EDGE_SPLIT_COLUMN).trim();
    if (!column.isEmpty() && !spec.isEmpty()) {
      throw new FanoutConfigException(
          "--edge-split "
              + spec
              + " and --edge-split-column "
              + column
              + " both give the edge split; pass one of them");
    }
    if (spec.isEmpty()
        && column.isEmpty()
        && (link || conf.get(PrepareOptions.TASK) == Task.LINK)) {
      spec = DEFAULT_FRACTIONS;
    }
    if (spec.isEmpty() && column.isEmpty()) {
      return null;
    }
    int k = conf.get(PrepareOptions.EDGE_SPLIT_NEGATIVES);
    if (k < 1) {
      throw new FanoutConfigException(
          "--" + PrepareOptions.EDGE_SPLIT_NEGATIVES.name() + " must be >= 1, got " + k);
    }
    return new EdgeSplitPlan(
        column.isEmpty() ? parseFractions(spec) : null,
        column.isEmpty() ? null : column,
        conf.get(PrepareOptions.EDGE_SPLIT_SEED),
        k);
  }

  /** {@code "a,b,c"} as three fractions {@code >= 0} summing to 1, the first positive. */
  static double[] parseFractions(String spec) {
    String expected =
        "; expected TRAIN,VAL,TEST fractions >= 0 summing to 1 with TRAIN > 0, e.g. "
            + DEFAULT_FRACTIONS;
    String[] parts = spec.split(",", -1);
    if (parts.length != 3) {
      throw new FanoutConfigException(
          "--edge-split '" + spec + "' has " + parts.length + " value(s)" + expected);
    }
    double[] f = new double[3];
    for (int i = 0; i < 3; i++) {
      try {
        f[i] = Double.parseDouble(parts[i].trim());
      } catch (NumberFormatException e) {
        throw new FanoutConfigException(
            "--edge-split '" + spec + "': '" + parts[i].trim() + "' is not a number" + expected);
      }
      if (!(f[i] >= 0 && f[i] <= 1)) {
        throw new FanoutConfigException(
            "--edge-split '"
                + spec
                + "': fraction "
                + parts[i].trim()
                + " is out of range"
                + expected);
      }
    }
    double sum = f[0] + f[1] + f[2];
    if (Math.abs(sum - 1) > 1e-9 || f[0] == 0) {
      throw new FanoutConfigException(
          String.format(Locale.ROOT, "--edge-split '%s': fractions sum to %s", spec, sum)
              + expected);
    }
    return f;
  }

  /**
   * The split code (0 train, 1 val, 2 test) of an edge between original ids src and dst: drawn from
   * the fractions, or the edge's {@link EdgeSplitColumn#CODE} with {@code --edge-split-column}.
   */
  Column code(Column src, Column dst, Column selfLoop, boolean undirected) {
    if (column != null) {
      return when(selfLoop, lit(TRAIN)).otherwise(col(EdgeSplitColumn.CODE));
    }
    Column a = undirected ? least(src, dst) : src;
    Column b = undirected ? greatest(src, dst) : dst;
    // 53 high bits of the hash as a double in [0, 1)
    Column u =
        shiftrightunsigned(xxhash64(lit(seed), a, b), 11).cast("double").multiply(lit(0x1p-53));
    return when(selfLoop, lit(TRAIN))
        .when(u.lt(lit(fractions[0])), lit(TRAIN))
        .when(u.lt(lit(fractions[0] + fractions[1])), lit(VAL))
        .otherwise(lit(TEST));
  }

  /**
   * Writes {@code edgesplit/val.parquet} and {@code test.parquet} into {@code staging} and returns
   * the manifest entry.
   *
   * @param edges the joined, non-dangling edges: original ids {@code _src}/{@code _dst}, dense ids
   *     {@code _sd}/{@code _dd} and {@link #CODE}
   * @param ids the id map, {@code (id, dense_id)}
   */
  StoreManifest.EdgeSplit write(
      Dataset<Row> edges,
      Dataset<Row> ids,
      long numVertices,
      boolean undirected,
      Path staging,
      String idType) {
    return write(
        edges, new Destinations(ids, numVertices, true), undirected, staging, idType, idType);
  }

  /**
   * Where the negatives' destinations are drawn from: the vertices of the destination type.
   *
   * @param ids its id map, {@code (id, dense_id)}
   * @param count its vertices; negatives are drawn uniformly from {@code [0, count)}
   * @param sameType whether sources are of the same type, so that self-loops and the source itself
   *     are excluded (a relation between two types has neither)
   */
  record Destinations(Dataset<Row> ids, long count, boolean sameType) {}

  /**
   * Writes {@code edgesplit/val.parquet} and {@code test.parquet} into {@code dir} (the store's
   * staging folder, or a typed store's relation folder) and returns the manifest entry.
   *
   * @param edges as for {@link #write(Dataset, Dataset, long, boolean, Path, String)}; dense ids
   *     local to the source and destination types in a typed store
   */
  StoreManifest.EdgeSplit write(
      Dataset<Row> edges,
      Destinations to,
      boolean undirected,
      Path dir,
      String srcIdType,
      String dstIdType) {
    Dataset<Row> ids = to.ids();
    long numVertices = to.count();
    Column first = col("_sd").leq(col("_dd"));
    Column src = col(NormalizedTables.SRC);
    Column dst = col(NormalizedTables.DST);
    // directed pairs keep their orientation (and their endpoints' id types, which may differ)
    Dataset<Row> pairs =
        edges
            .select(
                col(CODE),
                (undirected ? when(first, col("_sd")).otherwise(col("_dd")) : col("_sd")).as("a"),
                (undirected ? when(first, col("_dd")).otherwise(col("_sd")) : col("_dd")).as("b"),
                (undirected ? when(first, src).otherwise(dst) : src).as("a_id"),
                (undirected ? when(first, dst).otherwise(src) : dst).as("b_id"))
            .dropDuplicates(CODE, "a", "b");
    StoreManifest.EdgeSplit m = new StoreManifest.EdgeSplit();
    m.fractions = fractions == null ? null : fractions.clone();
    m.column = column;
    m.seed = seed;
    m.negativesPerPositive = negatives;
    // self-loops are in the graph but are not training pairs (link seeds)
    Dataset<Row> seeds = to.sameType() ? pairs.where(col("a").notEqual(col("b"))) : pairs;
    for (Row r : seeds.groupBy(col(CODE)).count().collectAsList()) {
      if (r.getInt(0) == TRAIN) {
        m.trainPairs = r.getLong(1);
      }
    }
    // every existing pair, both orientations for undirected graphs: negatives avoid them
    Dataset<Row> existing = edges.select(col("_sd").as("x"), col("_dd").as("y"));
    if (undirected) {
      existing = existing.union(edges.select(col("_dd").as("x"), col("_sd").as("y")));
    }
    existing = existing.distinct();
    // both held-out splits in one query, read through the driver once: one sort, and the plan's
    // shared parts (the pairs, the existing pairs) run once instead of once a split
    Dataset<Row> both = null;
    for (int code : new int[] {VAL, TEST}) {
      Dataset<Row> pos = pairs.where(col(CODE).equalTo(lit(code))).drop(CODE);
      Column draw =
          pmod(xxhash64(lit(seed), lit(code), col("a"), col("b"), col("j")), lit(numVertices))
              .cast("int");
      Dataset<Row> neg =
          pos.select(
                  col("a"),
                  col("b"),
                  col("a_id"),
                  explode(sequence(lit(0), lit(2 * negatives + 3))).as("j"))
              .withColumn("c", draw)
              .where(to.sameType() ? col("c").notEqual(col("a")) : lit(true))
              .join(
                  existing, col("a").equalTo(col("x")).and(col("c").equalTo(col("y"))), "left_anti")
              // a pair drawn for several positives (or both ways round) is kept for the first
              .withColumn("lo", undirected ? least(col("a"), col("c")) : col("a"))
              .withColumn("hi", undirected ? greatest(col("a"), col("c")) : col("c"))
              .withColumn(
                  "m",
                  row_number()
                      .over(Window.partitionBy("lo", "hi").orderBy(col("a"), col("b"), col("j"))))
              .where(col("m").equalTo(lit(1)))
              .withColumn("n", row_number().over(Window.partitionBy("a", "b").orderBy(col("j"))))
              .where(col("n").leq(lit(negatives)))
              .join(ids, col("c").equalTo(col("dense_id")))
              .select(
                  col("a"),
                  col("c").as("b"),
                  col("a_id"),
                  col("id").as("b_id"),
                  lit(0).as("label"));
      Dataset<Row> rows =
          pos.select(col("a"), col("b"), col("a_id"), col("b_id"), lit(1).as("label"))
              .union(neg)
              .withColumn(CODE, lit(code));
      both = both == null ? rows : both.union(rows);
    }
    // [split][label]: the rows written to each file
    long[][] written = new long[2][2];
    try (EdgeListFileWriter val = writer(dir, VAL, srcIdType, dstIdType);
        EdgeListFileWriter test = writer(dir, TEST, srcIdType, dstIdType)) {
      Iterator<Row> it =
          both.orderBy(col(CODE), col("label").desc(), col("a"), col("b")).toLocalIterator();
      while (it.hasNext()) {
        Row r = it.next();
        int label = r.getInt(4);
        int code = r.getInt(5);
        (code == VAL ? val : test).write(r.getInt(0), r.getInt(1), r.get(2), r.get(3), label);
        written[code - VAL][label]++;
      }
    }
    m.valPairs = written[0][1];
    m.valNegatives = written[0][0];
    m.testPairs = written[1][1];
    m.testNegatives = written[1][0];
    return m;
  }

  /** The writer of the held-out file of split {@code code} ({@link #VAL} or {@link #TEST}). */
  private static EdgeListFileWriter writer(Path dir, int code, String srcIdType, String dstIdType) {
    String split = StoreLayout.HELD_OUT_SPLITS.get(code - 1);
    return new EdgeListFileWriter(
        dir.resolve(StoreLayout.edgeSplitFile(split)), srcIdType, dstIdType);
  }
}
