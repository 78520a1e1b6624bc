package io.fanout.spark.prepare;

import io.fanout.conf.options.QuantizeOptions;
import io.fanout.store.Checksums;
import io.fanout.store.FeatureParams;
import io.fanout.store.FeatureReencoder;
import io.fanout.store.StoreLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.mllib.clustering.KMeans;
import org.apache.spark.mllib.clustering.KMeansModel;
import org.apache.spark.mllib.linalg.Vector;
import org.apache.spark.mllib.linalg.Vectors;
import org.apache.spark.mllib.stat.MultivariateStatisticalSummary;
import org.apache.spark.mllib.stat.Statistics;
import org.apache.spark.sql.SparkSession;

/**
 * Re-encodes the f32 feature files of a store folder ({@code prepare --feature-encoding}, {@code
 * quantize}), on Spark:
 *
 * <ul>
 *   <li>{@code int8}, {@code int4}: per-column minimum and maximum by a Spark aggregate ({@link
 *       Statistics#colStats}) give each column's scale and offset.
 *   <li>{@code pq}: a sample of rows, drawn by a hash of the seed and the dense id (so the same
 *       rows whatever the partitioning), is collected in dense-id order; each column group whose
 *       sample holds at most 256 distinct sub-vectors takes them as its codebook (exact); any other
 *       group's codebook is trained by Spark MLlib {@link KMeans} (k-means||, seeded) on the
 *       sample, held in a fixed number of slices so the result does not depend on the task count.
 * </ul>
 *
 * The parameters file is written first; then one Spark task per partition encodes its part file.
 */
public final class FeatureQuantizer {
  /** Slices of the k-means input: fixed, so codebooks do not depend on the cluster. */
  private static final int KMEANS_SLICES = 2;

  private static final int KMEANS_ITERATIONS = 25;
  private static final int KMEANS_THREADS = 4;

  private final SparkSession spark;
  private final int tasks;

  /**
   * @param tasks Spark tasks that read the rows for statistics and the sample (not for encoding,
   *     which takes one per partition); any count gives the same store
   */
  public FeatureQuantizer(SparkSession spark, int tasks) {
    this.spark = spark;
    this.tasks = Math.max(1, tasks);
  }

  /** A quantizer with the session's default parallelism. */
  public FeatureQuantizer(SparkSession spark) {
    this(spark, spark.sparkContext().defaultParallelism());
  }

  /** The encoding and its options, as {@link QuantizeOptions} parse them. */
  public record Request(int encoding, int groupSize, int sampleRows, long seed) {}

  /** {@code request} from the options in {@code conf} for {@code dim} columns. */
  static Request request(io.fanout.conf.FanoutConf conf, int dim) {
    QuantizeOptions.check(conf);
    return request(conf, conf.get(QuantizeOptions.FEATURE_ENCODING), dim);
  }

  /**
   * {@code request} that encodes {@code dim} columns as {@code encoding} (one vertex type's
   * encoding of a typed store), with the pq options in {@code conf}.
   */
  static Request request(
      io.fanout.conf.FanoutConf conf, io.fanout.store.StoreFeatureEncoding encoding, int dim) {
    if (encoding == io.fanout.store.StoreFeatureEncoding.PQ) {
      return pqRequest(conf, dim);
    }
    return new Request(
        encoding.code(),
        0,
        conf.get(QuantizeOptions.PQ_SAMPLE_ROWS),
        conf.get(QuantizeOptions.PQ_SEED));
  }

  /**
   * A pq request for {@code dim} columns from the pq options in {@code conf} ({@link
   * QuantizeOptions#PQ_GROUP_SIZE}, {@link QuantizeOptions#PQ_SAMPLE_ROWS}, {@link
   * QuantizeOptions#PQ_SEED}), checked as {@code quantize} checks them.
   */
  public static Request pqRequest(io.fanout.conf.FanoutConf conf, int dim) {
    QuantizeOptions.checkPq(conf);
    return new Request(
        StoreLayout.ENCODING_PQ,
        QuantizeOptions.groupSize(conf, dim),
        conf.get(QuantizeOptions.PQ_SAMPLE_ROWS),
        conf.get(QuantizeOptions.PQ_SEED));
  }

  /**
   * Writes to {@code dst} (a store's staging folder) the features of {@code src} (a folder of f32
   * part files of partitions starting at {@code starts}) encoded as {@code r} says, with their
   * parameters file. {@code dst} may be {@code src}: each part is then replaced.
   *
   * @return the parameters
   */
  public FeatureParams quantize(Path src, Path dst, long[] starts, int dim, Request r) {
    StoreFeatureRows rows = new StoreFeatureRows(src, starts, dim);
    FeatureParams params = train(rows, r);
    Path paramsFile = null;
    String crc = null;
    if (FeatureParams.hasFile(r.encoding())) {
      paramsFile = dst.resolve(StoreLayout.FEATURE_PARAMS);
      params.write(paramsFile);
      crc = Checksums.crc32c(paramsFile);
    }
    encode(rows, dst, starts, params, paramsFile, crc);
    return params;
  }

  private FeatureParams train(StoreFeatureRows rows, Request r) {
    switch (r.encoding()) {
      case StoreLayout.ENCODING_F32:
      case StoreLayout.ENCODING_F16:
        return FeatureParams.plain(r.encoding(), rows.dim());
      case StoreLayout.ENCODING_INT8:
      case StoreLayout.ENCODING_INT4:
        MultivariateStatisticalSummary s = Statistics.colStats(vectors(rows).rdd());
        return FeatureParams.affine(r.encoding(), floats(s.min()), floats(s.max()));
      case StoreLayout.ENCODING_PQ:
        return trainPq(rows, r);
      default:
        throw new IllegalArgumentException("unknown encoding " + r.encoding());
    }
  }

  /** Every row as an MLlib vector, read by {@link #tasks} tasks over dense-id ranges. */
  private JavaRDD<Vector> vectors(StoreFeatureRows rows) {
    return ranges(rows).flatMap(range -> asVectors(rows.rows(range[0], range[1])));
  }

  private static java.util.Iterator<Vector> asVectors(java.util.Iterator<float[]> it) {
    return new java.util.Iterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public Vector next() {
        float[] f = it.next();
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) {
          d[i] = f[i];
        }
        return Vectors.dense(d);
      }
    };
  }

  private JavaRDD<long[]> ranges(StoreFeatureRows rows) {
    long n = rows.numVertices();
    int t = (int) Math.max(1, Math.min(tasks, n));
    List<long[]> ranges = new ArrayList<>(t);
    for (int i = 0; i < t; i++) {
      ranges.add(new long[] {n * i / t, n * (i + 1) / t});
    }
    return JavaSparkContext.fromSparkContext(spark.sparkContext()).parallelize(ranges, t);
  }

  private FeatureParams trainPq(StoreFeatureRows rows, Request r) {
    return trainPq(sample(rows, r), rows.dim(), r);
  }

  /**
   * pq parameters for rows of {@code dim} columns, trained on {@code sample}: the rows of dense ids
   * that {@link #inSample} keeps, in dense-id order (what {@link #quantize} draws from a store). A
   * caller that generates its rows draws the same sample without writing them as float32 first.
   */
  public FeatureParams trainPq(List<float[]> sample, int dim, Request r) {
    int gs = r.groupSize();
    int groups = (dim + gs - 1) / gs;
    if (sample.isEmpty()) {
      throw new io.fanout.store.InvalidInputException(
          "the store has no vertices to train pq codebooks on");
    }
    int k = Math.min(QuantizeOptions.PQ_CENTROIDS, sample.size());
    float[][] codebooks = new float[groups][];
    ExecutorService pool = Executors.newFixedThreadPool(KMEANS_THREADS);
    try {
      List<Future<float[]>> futures = new ArrayList<>(groups);
      for (int g = 0; g < groups; g++) {
        int group = g;
        futures.add(
            pool.submit(
                () ->
                    codebook(
                        sample, group * gs, Math.min(gs, dim - group * gs), k, r.seed() + group)));
      }
      for (int g = 0; g < groups; g++) {
        codebooks[g] = futures.get(g).get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while training pq codebooks", e);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable c = e.getCause();
      throw c instanceof RuntimeException re ? re : new IllegalStateException(c);
    } finally {
      pool.shutdownNow();
    }
    return FeatureParams.pq(dim, gs, k, codebooks);
  }

  /** Rows whose hash of (seed, dense id) falls under the sampling rate, in dense-id order. */
  private List<float[]> sample(StoreFeatureRows rows, Request r) {
    double rate = sampleRate(r, rows.numVertices());
    long seed = r.seed();
    return ranges(rows).flatMap(range -> sampled(rows, range, rate, seed)).collect();
  }

  private static java.util.Iterator<float[]> sampled(
      StoreFeatureRows rows, long[] range, double rate, long seed) {
    java.util.Iterator<float[]> it = rows.rows(range[0], range[1]);
    List<float[]> kept = new ArrayList<>();
    for (long id = range[0]; it.hasNext(); id++) {
      float[] row = it.next();
      if (inSample(seed, id, rate)) {
        kept.add(row);
      }
    }
    return kept.iterator();
  }

  /** The fraction of {@code vertices} rows that {@code r}'s sample keeps. */
  public static double sampleRate(Request r, long vertices) {
    return Math.min(1.0, (double) r.sampleRows() / Math.max(1, vertices));
  }

  /** Whether the pq sample of {@code seed} at {@code rate} holds the row of dense id {@code id}. */
  public static boolean inSample(long seed, long id, double rate) {
    return rate >= 1.0 || unit(seed, id) < rate;
  }

  /** A uniform value in [0, 1) from (seed, id): SplitMix64's finalizer. */
  static double unit(long seed, long id) {
    long z = seed * 0x9E3779B97F4A7C15L + id + 0x632BE59BD9B4E019L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    z = z ^ (z >>> 31);
    return (z >>> 11) * 0x1.0p-53;
  }

  /** The k centroids of columns {@code [col, col + w)}, back to back. */
  private float[] codebook(List<float[]> sample, int col, int w, int k, long seed) {
    TreeSet<float[]> distinct = new TreeSet<>(FeatureQuantizer::compareRows);
    List<Vector> points = new ArrayList<>(sample.size());
    for (float[] row : sample) {
      float[] sub = Arrays.copyOfRange(row, col, col + w);
      distinct.add(sub);
      double[] d = new double[w];
      for (int j = 0; j < w; j++) {
        d[j] = sub[j];
      }
      points.add(Vectors.dense(d));
    }
    List<float[]> centers = new ArrayList<>(k);
    if (distinct.size() <= k) {
      centers.addAll(distinct);
    } else {
      JavaRDD<Vector> data =
          JavaSparkContext.fromSparkContext(spark.sparkContext())
              .parallelize(points, KMEANS_SLICES)
              .cache();
      try {
        KMeansModel model =
            new KMeans()
                .setK(k)
                .setMaxIterations(KMEANS_ITERATIONS)
                .setInitializationMode(KMeans.K_MEANS_PARALLEL())
                .setSeed(seed)
                .run(data.rdd());
        for (Vector c : model.clusterCenters()) {
          centers.add(floats(c));
        }
      } finally {
        data.unpersist(false);
      }
    }
    float[] out = new float[k * w];
    for (int c = 0; c < k; c++) {
      // fewer centers than k: repeat the last; encoders take the lowest index on ties
      float[] v = centers.get(Math.min(c, centers.size() - 1));
      System.arraycopy(v, 0, out, c * w, w);
    }
    return out;
  }

  private static int compareRows(float[] a, float[] b) {
    for (int i = 0; i < a.length; i++) {
      int c = Float.compare(a[i], b[i]);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  private void encode(
      StoreFeatureRows rows,
      Path dst,
      long[] starts,
      FeatureParams params,
      Path paramsFile,
      String crc) {
    int parts = starts.length - 1;
    List<Integer> ids = new ArrayList<>(parts);
    for (int p = 0; p < parts; p++) {
      ids.add(p);
    }
    String dstDir = dst.toAbsolutePath().toString();
    String paramsPath = paramsFile == null ? null : paramsFile.toAbsolutePath().toString();
    int encoding = params.encoding;
    int dim = params.dim;
    long[] firsts = starts.clone();
    JavaSparkContext.fromSparkContext(spark.sparkContext())
        .parallelize(ids, Math.max(1, parts))
        .foreach(p -> encodePart(rows, p, firsts[p], dstDir, paramsPath, crc, encoding, dim));
  }

  private static void encodePart(
      StoreFeatureRows rows,
      int p,
      long first,
      String dstDir,
      String paramsPath,
      String crc,
      int encoding,
      int dim) {
    FeatureParams fp =
        paramsPath == null
            ? FeatureParams.plain(encoding, dim)
            : FeatureParams.read(Paths.get(paramsPath), crc, encoding, dim);
    Path out = Paths.get(dstDir).resolve(StoreLayout.featuresFile(p));
    Path src = rows.part(p);
    boolean inPlace = src.toAbsolutePath().equals(out.toAbsolutePath());
    Path target = inPlace ? out.resolveSibling("_" + out.getFileName() + ".encoding") : out;
    FeatureReencoder.reencode(src, target, first, fp);
    if (inPlace) {
      try {
        Files.move(target, out, StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot replace " + out, e);
      }
    }
  }

  private static float[] floats(Vector v) {
    double[] d = v.toArray();
    float[] f = new float[d.length];
    for (int i = 0; i < d.length; i++) {
      f[i] = (float) d[i];
    }
    return f;
  }
}
