package io.fanout.spark.partition;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.element_at;
import static org.apache.spark.sql.functions.greatest;
import static org.apache.spark.sql.functions.least;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.struct;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;
import static org.apache.spark.sql.functions.xxhash64;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.expressions.Window;
import org.apache.spark.sql.expressions.WindowSpec;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Multilevel partitioning as Spark jobs over the edge table (the scheme of METIS, distributed like
 * ParMETIS):
 *
 * <ol>
 *   <li>Coarsen: each vertex proposes its heaviest neighbor (ties by a hash of the pair and the
 *       seed), mutual proposals merge, edges between merged vertices add up. Repeated until at most
 *       {@code coarseVertices} vertices remain (or a round merges under 5%).
 *   <li>The coarse graph, of bounded size, is partitioned in the driver by {@link
 *       io.fanout.graph.MultilevelPartitioner}.
 *   <li>Uncoarsen: each level inherits its coarse vertex's part, then refines with balanced label
 *       propagation: every vertex with a positive gain asks to join its best-connected part, half
 *       of the vertices per pass (chosen by a hash, so neighbors rarely swap places together); each
 *       part admits its best-gain applicants up to its free capacity, so no part ever exceeds
 *       {@code floor(1.05 * V / k)}.
 * </ol>
 *
 * <p>Every step is a join, an aggregation or a window over (vertex, part) keys: a task holds rows,
 * never a whole graph, except the bounded coarse graph. Deterministic: no random state, only hashes
 * of (seed, level, pass, vertex), totals of exact integer sums, and total orders.
 *
 * <p>A level within {@link #DRIVER_VERTICES} vertices and {@link #DRIVER_EDGES} edge rows (fixed
 * bounds, whatever the input) is collected, and it and its coarser levels (coarsening, the initial
 * partition, refinement) run in the driver by {@link DriverLevels}, which repeats the Spark steps
 * on arrays with the same hashes and orders: the assignment is the same, without the dozens of
 * one-task Spark jobs per level that a small level costs. Finer levels stay Spark jobs.
 */
final class MultilevelGraphPartitioner implements GraphPartitioner {
  static final double IMBALANCE = 1.05;
  static final int REFINE_PASSES = 6;
  static final int COARSE_REFINE_PASSES = 3;
  private static final int MAX_LEVELS = 60;
  static final long VERTICES_PER_TASK = 1_000_000;

  /**
   * A level with at most this many vertices and {@link #DRIVER_EDGES} edge rows is collected and
   * its coarser levels run in the driver ({@link DriverLevels}).
   */
  static final long DRIVER_VERTICES = 250_000;

  /** Edge rows (both directions of an undirected edge) of a level the driver takes over. */
  static final long DRIVER_EDGES = 2_000_000;

  private final int coarseVertices;
  private final long verticesPerTask;
  private final long driverVertices;
  private final long driverEdges;

  /**
   * @param verticesPerTask the jobs use one shuffle partition per this many vertices, at most
   *     {@code spark.sql.shuffle.partitions}
   * @param driverVertices the first level with at most this many vertices and {@code driverEdges}
   *     edge rows, and every coarser one, runs in the driver (the same assignment as in Spark); 0
   *     runs every level as Spark jobs
   */
  MultilevelGraphPartitioner(
      int coarseVertices, long verticesPerTask, long driverVertices, long driverEdges) {
    this.coarseVertices = coarseVertices;
    this.verticesPerTask = verticesPerTask;
    this.driverVertices = driverVertices;
    this.driverEdges = driverEdges;
  }

  @Override
  public String name() {
    return "multilevel";
  }

  @Override
  public Dataset<Row> assign(Dataset<Row> vertices, Dataset<Row> edges, int k, long seed) {
    SparkSession spark = vertices.sparkSession();
    String key = "spark.sql.shuffle.partitions";
    String shufflePartitions = spark.conf().get(key);
    try {
      return run(spark, vertices, edges, k, seed, Integer.parseInt(shufflePartitions));
    } finally {
      spark.conf().set(key, shufflePartitions);
    }
  }

  private Dataset<Row> run(
      SparkSession spark,
      Dataset<Row> vertices,
      Dataset<Row> edges,
      int k,
      long seed,
      int maxShufflePartitions) {
    Table indexed = index(spark, vertices);
    Dataset<Row> index = indexed.rows();
    long n = indexed.count();
    // The jobs below shuffle small tables many times: one shuffle partition per million vertices
    // (the assignment does not depend on it), at most the session's setting.
    spark
        .conf()
        .set(
            "spark.sql.shuffle.partitions",
            Long.toString(Math.max(1, Math.min(maxShufflePartitions, n / verticesPerTask))));
    Dataset<Row> part;
    if (k == 1 || n == 0) {
      part = index.select(col("v").as("u"), lit(0).as("p"));
    } else {
      part = multilevel(spark, index, edges, n, k, seed);
    }
    return materialize(
        index
            .join(part, index.col("v").equalTo(part.col("u")))
            .select(index.col("id"), part.col("p").as("part")));
  }

  /** {@code (id, v)}: the distinct ids numbered 0.. in ascending order. */
  private static Table index(SparkSession spark, Dataset<Row> vertices) {
    Dataset<Row> ids = vertices.select(col("id")).distinct().sort(col("id"));
    StructType schema =
        new StructType()
            .add("id", ids.schema().fields()[0].dataType(), false)
            .add("v", DataTypes.LongType, false);
    JavaRDD<Row> rows = ids.javaRDD().zipWithIndex().map(t -> RowFactory.create(t._1.get(0), t._2));
    return materializeCounted(spark.createDataFrame(rows, schema));
  }

  private Dataset<Row> multilevel(
      SparkSession spark, Dataset<Row> index, Dataset<Row> edges, long n, int k, long seed) {
    Dataset<Row> s = index.select(col("id").as("_s"), col("v").as("_a"));
    Dataset<Row> d = index.select(col("id").as("_d"), col("v").as("_b"));
    Dataset<Row> pairs =
        edges
            .join(s, edges.col("src").equalTo(s.col("_s")))
            .join(d, edges.col("dst").equalTo(d.col("_d")))
            .where(col("_a").notEqual(col("_b")))
            .select(least(col("_a"), col("_b")).as("a"), greatest(col("_a"), col("_b")).as("b"))
            .distinct();
    Table e =
        materializeCounted(
            pairs
                .select(col("a").as("u"), col("b").as("v"), lit(1L).as("w"))
                .union(pairs.select(col("b").as("u"), col("a").as("v"), lit(1L).as("w"))));
    Dataset<Row> vw = index.select(col("v").as("u"), lit(1L).as("vw"));
    long maxPart = Math.max((long) Math.floor(IMBALANCE * n / k), (n + k - 1) / k);
    // merged vertices stay light enough that a balanced partition of the coarse graph exists
    long maxVw = Math.max(1, (long) Math.floor(0.04 * n / k));

    List<Level> levels = new ArrayList<>();
    levels.add(new Level(e.rows(), vw, null, n, e.count()));
    Level cur = levels.get(0);
    while (!inDriver(cur) && cur.n > coarseVertices && levels.size() < MAX_LEVELS) {
      Level next = coarsen(cur, maxVw, seed, levels.size());
      if (next.n > 0.95 * cur.n) {
        break;
      }
      levels.add(next);
      cur = next;
    }
    int top = levels.size() - 1;
    LevelGraph coarsest = collect(cur);
    int[] p;
    if (inDriver(cur)) {
      // this level and the coarser ones in the driver, refined: Spark goes on one level finer
      p =
          DriverLevels.partition(
              coarsest, top, coarseVertices, MAX_LEVELS, k, maxPart, maxVw, seed);
      top--;
    } else {
      p = DriverLevels.initial(coarsest, k, seed);
    }
    Dataset<Row> part = parts(spark, coarsest, p);
    // a coarse vertex weighs what its finer vertices weigh: projecting keeps every part's load
    long[] load = DriverLevels.loads(coarsest, p, k);
    for (int l = top; l >= 0; l--) {
      Level fine = levels.get(l);
      if (l < levels.size() - 1) {
        Dataset<Row> map = levels.get(l + 1).map;
        part =
            materialize(
                map.join(part, map.col("c").equalTo(part.col("u")))
                    .select(map.col("u"), part.col("p")));
      }
      part = refine(fine, part, load, maxPart, seed, l);
    }
    return part;
  }

  /**
   * A graph: edges {@code (u, v, w)} both ways ({@code m} rows), vertices {@code (u, vw)} ({@code
   * n} rows), and the map from finer.
   */
  private record Level(Dataset<Row> e, Dataset<Row> vw, Dataset<Row> map, long n, long m) {}

  private boolean inDriver(Level g) {
    return g.n <= driverVertices && g.m <= driverEdges;
  }

  private static Level coarsen(Level g, long maxVw, long seed, int level) {
    Dataset<Row> wv = g.vw.select(col("u").as("_v"), col("vw").as("_vwv"));
    Dataset<Row> cand =
        g.e
            .join(g.vw, "u")
            .join(wv, g.e.col("v").equalTo(wv.col("_v")))
            .where(col("vw").plus(col("_vwv")).leq(lit(maxVw)));
    Column tie =
        xxhash64(lit(seed), lit(level), least(col("u"), col("v")), greatest(col("u"), col("v")));
    Dataset<Row> pick =
        cand.groupBy(col("u"))
            .agg(max(struct(col("w"), tie.as("t"), col("v"))).as("m"))
            .select(col("u"), col("m.v").as("m"));
    Dataset<Row> other = pick.select(col("u").as("_u2"), col("m").as("_m2"));
    Dataset<Row> mutual =
        pick.join(
                other,
                pick.col("m")
                    .equalTo(other.col("_u2"))
                    .and(other.col("_m2").equalTo(pick.col("u"))))
            .select(pick.col("u"), pick.col("m"));
    Dataset<Row> map =
        materialize(
            g.vw
                .select(col("u"))
                .join(mutual, "u", "left")
                .select(col("u"), coalesce(least(col("u"), col("m")), col("u")).as("c")));
    Dataset<Row> cvw =
        map.join(g.vw, "u")
            .groupBy(col("c"))
            .agg(sum(col("vw")).as("vw"))
            .select(col("c").as("u"), col("vw"));
    Table coarse = materializeCounted(cvw);
    Dataset<Row> mu = map.select(col("u").as("_mu"), col("c").as("_cu"));
    Dataset<Row> mv = map.select(col("u").as("_mv"), col("c").as("_cv"));
    Table ce =
        materializeCounted(
            g.e
                .join(mu, g.e.col("u").equalTo(mu.col("_mu")))
                .join(mv, g.e.col("v").equalTo(mv.col("_mv")))
                .where(col("_cu").notEqual(col("_cv")))
                .groupBy(col("_cu"), col("_cv"))
                .agg(sum(col("w")).as("w"))
                .select(col("_cu").as("u"), col("_cv").as("v"), col("w")));
    return new Level(ce.rows(), coarse.rows(), map, coarse.count(), ce.count());
  }

  /** The rows of level {@code g} (of bounded size) in the driver. */
  private static LevelGraph collect(Level g) {
    int n = Math.toIntExact(g.n);
    long[] ids = new long[n];
    long[] vw = new long[n];
    Iterator<Row> vs = g.vw.toLocalIterator();
    for (int i = 0; i < n; i++) {
      Row r = vs.next();
      ids[i] = r.getLong(0);
      vw[i] = r.getLong(1);
    }
    long[] sorted = ids.clone();
    Arrays.sort(sorted);
    long[] sortedVw = new long[n];
    for (int i = 0; i < n; i++) {
      sortedVw[Arrays.binarySearch(sorted, ids[i])] = vw[i];
    }
    int m = Math.toIntExact(g.m);
    int[] src = new int[m];
    int[] dst = new int[m];
    long[] w = new long[m];
    Iterator<Row> es = g.e.toLocalIterator();
    for (int i = 0; i < m; i++) {
      Row r = es.next();
      src[i] = Arrays.binarySearch(sorted, r.getLong(0));
      dst[i] = Arrays.binarySearch(sorted, r.getLong(1));
      w[i] = r.getLong(2);
    }
    return LevelGraph.of(sorted, sortedVw, src, dst, w);
  }

  /** {@code (u, p)}: the part {@code part[i]} of every vertex of {@code g}. */
  private static Dataset<Row> parts(SparkSession spark, LevelGraph g, int[] part) {
    List<Row> rows = new ArrayList<>(g.n());
    for (int i = 0; i < g.n(); i++) {
      rows.add(RowFactory.create(g.ids()[i], part[i]));
    }
    StructType schema =
        new StructType().add("u", DataTypes.LongType, false).add("p", DataTypes.IntegerType, false);
    return spark.createDataFrame(rows, schema);
  }

  /**
   * Balanced label propagation passes over one level; {@code part} is {@code (u, p)}, {@code load}
   * each part's vertex weight, updated to the refined parts' weights.
   */
  private static Dataset<Row> refine(
      Level g, Dataset<Row> part, long[] load, long maxPart, long seed, int level) {
    int k = load.length;
    int passes = level == 0 ? REFINE_PASSES : COARSE_REFINE_PASSES;
    int idle = 0;
    for (int pass = 0; pass < passes; pass++) {
      long[] room = new long[k];
      for (int q = 0; q < k; q++) {
        room[q] = maxPart - load[q];
      }
      Dataset<Row> pv = part.select(col("u").as("_v"), col("p").as("q"));
      Dataset<Row> conn =
          g.e
              .join(pv, g.e.col("v").equalTo(pv.col("_v")))
              .groupBy(col("u"), col("q"))
              .agg(sum(col("w")).as("c"));
      Column tie = xxhash64(lit(seed), lit(level), lit(pass), col("u"), col("q"));
      Dataset<Row> best =
          conn.join(part, "u")
              .groupBy(col("u"), col("p"))
              .agg(
                  sum(when(col("q").equalTo(col("p")), col("c")).otherwise(0L)).as("own"),
                  max(when(col("q").notEqual(col("p")), struct(col("c"), tie.as("t"), col("q"))))
                      .as("b"))
              .where(
                  col("b")
                      .isNotNull()
                      .and(col("b.c").gt(col("own")))
                      .and(
                          pmod(xxhash64(lit(seed), lit(level), lit(pass), col("u")), lit(2L))
                              .equalTo(lit((long) (pass & 1)))))
              .select(
                  col("u"),
                  col("b.q").as("to"),
                  col("b.c").minus(col("own")).as("gain"),
                  col("b.t").as("t"))
              .join(g.vw, "u");
      WindowSpec byGain =
          Window.partitionBy(col("to"))
              .orderBy(col("gain").desc(), col("t"), col("u"))
              .rowsBetween(Window.unboundedPreceding(), Window.currentRow());
      Dataset<Row> moves =
          best.withColumn("_filled", sum(col("vw")).over(byGain))
              .where(col("_filled").leq(element_at(lit(room), col("to").plus(1))))
              .select(col("u").as("_mu"), col("to"));
      Dataset<Row> next =
          materialize(
              part.join(moves, part.col("u").equalTo(moves.col("_mu")), "left")
                  .select(
                      col("u"),
                      coalesce(col("to"), col("p")).as("p"),
                      col("to").isNotNull().as("_m")));
      long moved = loads(g, next, load);
      part = next.select(col("u"), col("p"));
      idle = moved == 0 ? idle + 1 : 0;
      if (idle == 2) { // both halves of the vertices found nothing to gain
        break;
      }
    }
    return part;
  }

  /**
   * The rows of {@code d}, computed once and kept by Spark's block manager, as a table without
   * lineage. (A {@code Dataset.localCheckpoint} would carry its plan's size estimate, which grows
   * as a product over the levels' joins.)
   */
  private static Dataset<Row> materialize(Dataset<Row> d) {
    return materializeCounted(d).rows();
  }

  /** {@link #materialize} with the row count its job gives. */
  private static Table materializeCounted(Dataset<Row> d) {
    JavaRDD<Row> rows = d.javaRDD();
    rows.rdd().localCheckpoint();
    long count = rows.count();
    return new Table(d.sparkSession().createDataFrame(rows, d.schema()), count);
  }

  private record Table(Dataset<Row> rows, long count) {}

  /** Fills {@code load} with each part's vertex weight; returns how many rows have {@code _m}. */
  private static long loads(Level g, Dataset<Row> part, long[] load) {
    long moved = 0;
    Arrays.fill(load, 0);
    List<Row> rows =
        part.join(g.vw, "u")
            .groupBy(col("p"))
            .agg(sum(col("vw")), sum(when(col("_m"), 1L).otherwise(0L)))
            .collectAsList();
    for (Row r : rows) {
      load[r.getInt(0)] = r.getLong(1);
      moved += r.getLong(2);
    }
    return moved;
  }
}
