package io.fanout.spark.generate;

import io.fanout.spark.internal.JobSteps;
import io.fanout.tensor.CounterRng;
import java.io.Serializable;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SaveMode;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A synthetic graph with the layout of the bundled datasets: vertices {@code (id bigint, label int,
 * split string, features array<float>)}, edges {@code (src bigint, dst bigint)}.
 *
 * <p>Vertex {@code i} belongs to community {@code i mod classes}, its label. Its features are the
 * community's centroid (a Gaussian vector per community) plus unit Gaussian noise. Edges follow
 * R-MAT (recursive quadrant choice with probabilities a=0.57, b=0.19, c=0.19, d=0.05 over {@code
 * ceil(log2 V)} levels, folded into {@code [0, V)}), so degrees are skewed like real graphs; with
 * probability {@code homophily} the destination is moved to the nearest vertex of the source's
 * community. Splits: 60% train, 20% val, 20% test.
 *
 * <p>Every value is a counter-based hash of (seed, row, position): the tables depend only on the
 * parameters, not on the number of tasks. Rows are generated on executors from {@code spark.range}.
 */
public final class GraphGenerator implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final StructType VERTICES =
      new StructType()
          .add("id", DataTypes.LongType, false)
          .add("label", DataTypes.IntegerType, false)
          .add("split", DataTypes.StringType, false)
          .add("features", DataTypes.createArrayType(DataTypes.FloatType, false), false);
  public static final StructType EDGES =
      new StructType().add("src", DataTypes.LongType, false).add("dst", DataTypes.LongType, false);

  static final String[] SPLITS = {"train", "val", "test"};

  private final long vertices;
  private final long edges;
  private final int featureDim;
  private final int classes;
  private final long seed;
  private final double homophily;

  public GraphGenerator(
      long vertices, long edges, int featureDim, int classes, long seed, double homophily) {
    if (vertices < 1 || edges < 0 || featureDim < 0 || classes < 1) {
      throw new IllegalArgumentException(
          "need vertices >= 1, edges >= 0, feature dim >= 0, classes >= 1");
    }
    if (homophily < 0 || homophily > 1) {
      throw new IllegalArgumentException("homophily must be in [0, 1]");
    }
    this.vertices = vertices;
    this.edges = edges;
    this.featureDim = featureDim;
    this.classes = classes;
    this.seed = seed;
    this.homophily = homophily;
  }

  public Dataset<Row> vertices(SparkSession spark, int tasks) {
    return spark
        .range(0, vertices, 1, tasks)
        .mapPartitions(
            (MapPartitionsFunction<Long, Row>) it -> map(it, this::vertex), Encoders.row(VERTICES));
  }

  public Dataset<Row> edges(SparkSession spark, int tasks) {
    return spark
        .range(0, edges, 1, tasks)
        .mapPartitions(
            (MapPartitionsFunction<Long, Row>) it -> map(it, this::edge), Encoders.row(EDGES));
  }

  /**
   * Writes both tables as Parquet ({@code vertices} first, then {@code edges}), each with {@code
   * tasks} tasks and files, replacing what the paths hold; the jobs are labelled {@code "fanout
   * generate: write vertices (1/2)"} and {@code "... write edges (2/2)"}.
   */
  public void write(SparkSession spark, int tasks, String verticesPath, String edgesPath) {
    JobSteps steps = new JobSteps(spark, "generate", List.of(WRITE_VERTICES, WRITE_EDGES));
    steps.run(
        WRITE_VERTICES,
        () -> vertices(spark, tasks).write().mode(SaveMode.Overwrite).parquet(verticesPath));
    steps.run(
        WRITE_EDGES, () -> edges(spark, tasks).write().mode(SaveMode.Overwrite).parquet(edgesPath));
  }

  private static final String WRITE_VERTICES = "write vertices";
  private static final String WRITE_EDGES = "write edges";

  interface RowOf extends Serializable {
    Row at(long i);
  }

  static Iterator<Row> map(Iterator<Long> it, RowOf f) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public Row next() {
        return f.at(it.next());
      }
    };
  }

  Row vertex(long i) {
    int c = (int) (i % classes);
    float[] x = new float[featureDim];
    long noiseKey = CounterRng.key(seed, 1, i, 0);
    long centroidKey = CounterRng.key(seed, 2, c, 0);
    for (int j = 0; j < featureDim; j++) {
      x[j] = (float) (gaussian(centroidKey, j) + gaussian(noiseKey, j));
    }
    double u = uniform(CounterRng.key(seed, 3, i, 0), 0);
    String split = SPLITS[u < 0.6 ? 0 : u < 0.8 ? 1 : 2];
    return RowFactory.create(i, c, split, scala.collection.immutable.ArraySeq.unsafeWrapArray(x));
  }

  Row edge(long k) {
    int levels = levels(vertices);
    long key = CounterRng.key(seed, 4, k, 0);
    long[] cell = rmat(key, levels);
    long src = cell[0] % vertices;
    long dst = cell[1] % vertices;
    if (uniform(key, levels) < homophily) {
      long moved = dst - dst % classes + src % classes;
      dst = moved < vertices ? moved : Math.max(0, moved - classes);
    }
    return RowFactory.create(src, dst);
  }

  /** R-MAT's levels for ids below {@code n}: {@code ceil(log2 n)}, at least 1. */
  static int levels(long n) {
    return Math.max(1, 64 - Long.numberOfLeadingZeros(n - 1));
  }

  /**
   * An R-MAT cell {@code {src, dst}} in {@code [0, 2^levels)}: per level a quadrant with
   * probabilities a=0.57, b=0.19, c=0.19, d=0.05, from {@code uniform(key, level)}.
   */
  static long[] rmat(long key, int levels) {
    long src = 0;
    long dst = 0;
    for (int l = 0; l < levels; l++) {
      double r = uniform(key, l);
      src <<= 1;
      dst <<= 1;
      if (r < 0.57) {
        continue;
      } else if (r < 0.76) {
        dst |= 1;
      } else if (r < 0.95) {
        src |= 1;
      } else {
        src |= 1;
        dst |= 1;
      }
    }
    return new long[] {src, dst};
  }

  static double uniform(long key, long i) {
    return (CounterRng.mix(key + (i + 1) * 0x9e3779b97f4a7c15L) >>> 11) * 0x1.0p-53;
  }

  /** A standard normal value (Box-Muller over two counter-based uniforms). */
  static double gaussian(long key, long i) {
    double u1 = uniform(key, 2 * i);
    double u2 = uniform(key, 2 * i + 1);
    return Math.sqrt(-2 * Math.log1p(-u1)) * Math.cos(2 * Math.PI * u2);
  }
}
