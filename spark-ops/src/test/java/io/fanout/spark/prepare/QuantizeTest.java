package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.options.QuantizeOptions;
import io.fanout.graph.GraphStore;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareResult;
import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code prepare --feature-encoding} and {@code quantize}: Spark statistics and MLlib codebooks,
 * error bounds against the f32 store, determinism for a seed and across task counts, the f32
 * store's manifest unchanged.
 */
class QuantizeTest {
  static final int N = 600;
  static final int DIM = 10;
  static SparkSession spark;
  static float[][] features;

  @TempDir static Path dir;
  static Path f32;

  static final StructType V =
      new StructType()
          .add("id", DataTypes.LongType)
          .add("features", DataTypes.createArrayType(DataTypes.FloatType, false));
  static final StructType E =
      new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType);

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("QuantizeTest");
    SplittableRandom rnd = new SplittableRandom(5);
    features = new float[N][DIM];
    List<Row> vs = new ArrayList<>();
    List<Row> es = new ArrayList<>();
    for (int v = 0; v < N; v++) {
      Float[] boxed = new Float[DIM];
      for (int c = 0; c < DIM; c++) {
        features[v][c] = (float) (rnd.nextGaussian() * (c + 1) + c);
        boxed[c] = features[v][c];
      }
      vs.add(RowFactory.create((long) v, boxed));
      es.add(RowFactory.create((long) v, (long) ((v * 7 + 1) % N)));
    }
    f32 = dir.resolve("f32");
    prepare(vs, es, f32, "f32");
    vertices = vs;
    edges = es;
  }

  static List<Row> vertices;
  static List<Row> edges;

  static PrepareResult prepare(List<Row> vs, List<Row> es, Path out, String encoding) {
    Dataset<Row> v = spark.createDataFrame(vs, V);
    Dataset<Row> e = spark.createDataFrame(es, E);
    return Fanout.get(spark)
        .prepare(v, e)
        .option("partitions", "3")
        .option("feature-encoding", encoding)
        .output(out.toString())
        .execute();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Every row of {@code store}, decoded, by dense id. */
  static float[][] rows(Path store) {
    try (GraphStore s = GraphStore.open(store)) {
      int n = s.features().numVertices();
      int[] ids = new int[n];
      for (int i = 0; i < n; i++) {
        ids[i] = i;
      }
      float[] buf = new float[n * DIM];
      s.features().gather(ids, 0, n, buf, 0);
      float[][] out = new float[n][];
      for (int i = 0; i < n; i++) {
        out[i] = java.util.Arrays.copyOfRange(buf, i * DIM, (i + 1) * DIM);
      }
      return out;
    }
  }

  static byte[] bytes(Path store, String rel) throws IOException {
    return Files.readAllBytes(StoreManifest.read(store).dataRoot(store).resolve(rel));
  }

  @Test
  void f32StoresRecordNoEncodingOptions() throws IOException {
    StoreManifest m = StoreManifest.read(f32);
    assertThat(m.featureEncoding).isEqualTo("f32");
    assertThat(m.options).doesNotContainKeys("feature-encoding", "pq-group-size", "pq-seed");
    assertThat(Files.readString(f32.resolve(StoreLayout.MANIFEST))).doesNotContain("pq-");
    assertThat(m.file(StoreLayout.FEATURE_PARAMS)).isNull();
  }

  @Test
  void affineEncodingsDecodeWithinHalfAStepOfTheF32Store() {
    float[][] ref = rows(f32);
    for (String enc : new String[] {"int8", "int4"}) {
      Path out = dir.resolve("q-" + enc);
      PrepareResult r =
          Fanout.get(spark).quantize(f32.toString()).encoding(enc).output(out.toString()).execute();
      assertThat(r.manifest().featureEncoding).isEqualTo(enc);
      assertThat(r.manifest().options).containsEntry("feature-encoding", enc);
      float[] min = new float[DIM];
      float[] max = new float[DIM];
      java.util.Arrays.fill(min, Float.POSITIVE_INFINITY);
      java.util.Arrays.fill(max, Float.NEGATIVE_INFINITY);
      for (float[] row : ref) {
        for (int c = 0; c < DIM; c++) {
          min[c] = Math.min(min[c], row[c]);
          max[c] = Math.max(max[c], row[c]);
        }
      }
      float[][] got = rows(out);
      int levels = FeatureParams.levels(StoreLayout.encodingCode(enc));
      for (int v = 0; v < N; v++) {
        for (int c = 0; c < DIM; c++) {
          double step = ((double) max[c] - min[c]) / levels;
          assertThat((double) Math.abs(got[v][c] - ref[v][c]))
              .as("%s vertex %d column %d", enc, v, c)
              .isLessThanOrEqualTo(step / 2 * (1 + 1e-5) + Math.ulp(max[c]));
        }
      }
      // the idmap, csr and nodes files are the f32 store's, unchanged
      StoreManifest src = StoreManifest.read(f32);
      for (StoreManifest.FileEntry f : src.files) {
        if (!f.path.startsWith(StoreLayout.FEATURES_DIR + "/")) {
          assertThat(r.manifest().file(f.path)).usingRecursiveComparison().isEqualTo(f);
        }
      }
    }
  }

  @Test
  void prepareWithAnEncodingWritesTheStoreQuantizeWrites() throws IOException {
    Path prepared = dir.resolve("p-int8");
    prepare(vertices, edges, prepared, "int8");
    Path quantized = dir.resolve("q2-int8");
    Fanout.get(spark)
        .quantize(f32.toString())
        .encoding("int8")
        .output(quantized.toString())
        .execute();
    assertThat(StoreManifest.read(prepared).fingerprint())
        .isEqualTo(StoreManifest.read(quantized).fingerprint());
    assertThat(bytes(prepared, StoreLayout.featuresFile(1)))
        .isEqualTo(bytes(quantized, StoreLayout.featuresFile(1)));
  }

  @Tag("slow")
  @Test
  void pqCodebooksAreTrainedByKMeansAndDeterministic() throws IOException {
    // 300 sampled rows of continuous values: more distinct sub-vectors than centroids, so k-means
    Path a = dir.resolve("pq-a");
    Path b = dir.resolve("pq-b");
    for (Path out : new Path[] {a, b}) {
      Fanout.get(spark)
          .quantize(f32.toString())
          .encoding("pq")
          .option("pq-group-size", "4")
          .option("pq-sample-rows", "300")
          .option("pq-seed", "7")
          .output(out.toString())
          .execute();
    }
    assertThat(bytes(a, StoreLayout.FEATURE_PARAMS))
        .isEqualTo(bytes(b, StoreLayout.FEATURE_PARAMS));
    for (int p = 0; p < 3; p++) {
      assertThat(bytes(a, StoreLayout.featuresFile(p)))
          .isEqualTo(bytes(b, StoreLayout.featuresFile(p)));
    }
    StoreManifest m = StoreManifest.read(a);
    assertThat(m.options)
        .containsEntry("pq-group-size", "4")
        .containsEntry("pq-sample-rows", "300")
        .containsEntry("pq-seed", "7");

    // across task counts: the same parameters whether 1 or 5 tasks read the rows
    StoreManifest src = StoreManifest.read(f32);
    long[] starts = new long[src.partitions + 1];
    for (int p = 0; p < src.partitions; p++) {
      starts[p + 1] = starts[p] + src.partitionTable.get(p).numVertices;
    }
    FeatureQuantizer.Request req = new FeatureQuantizer.Request(StoreLayout.ENCODING_PQ, 4, 300, 7);
    Path one = dir.resolve("tasks-1");
    Path five = dir.resolve("tasks-5");
    new FeatureQuantizer(spark, 1).quantize(src.dataRoot(f32), one, starts, DIM, req);
    new FeatureQuantizer(spark, 5).quantize(src.dataRoot(f32), five, starts, DIM, req);
    assertThat(Files.readAllBytes(one.resolve(StoreLayout.FEATURE_PARAMS)))
        .isEqualTo(bytes(a, StoreLayout.FEATURE_PARAMS))
        .isEqualTo(Files.readAllBytes(five.resolve(StoreLayout.FEATURE_PARAMS)));

    // a different seed trains other codebooks
    Path c = dir.resolve("pq-c");
    Fanout.get(spark)
        .quantize(f32.toString())
        .encoding("pq")
        .option("pq-group-size", "4")
        .option("pq-sample-rows", "300")
        .option("pq-seed", "8")
        .output(c.toString())
        .execute();
    assertThat(bytes(c, StoreLayout.FEATURE_PARAMS))
        .isNotEqualTo(bytes(a, StoreLayout.FEATURE_PARAMS));

    // k-means centroids fit the data: reconstruction error well under the columns' variance
    float[][] ref = rows(f32);
    float[][] got = rows(a);
    double err = 0;
    double var = 0;
    for (int v = 0; v < N; v++) {
      for (int col = 0; col < DIM; col++) {
        double d = got[v][col] - ref[v][col];
        err += d * d;
        var += (double) (col + 1) * (col + 1);
      }
    }
    assertThat(err / var).isLessThan(0.25);
    try (GraphStore s = GraphStore.open(a)) {
      assertThat(s.featureParams().rowBytes()).isEqualTo(3); // 4 + 4 + 2 columns
      assertThat(s.featureParams().centroids).isEqualTo(256);
    }
  }

  @Test
  void defaultGroupSizeCompressesAtLeast32x() {
    for (int dim : new int[] {8, 745, 1433, 3703, 6805, 100, 9}) {
      int g = QuantizeOptions.defaultGroupSize(dim);
      int groups = (dim + g - 1) / g;
      assertThat(4.0 * dim / groups).as("dim %d", dim).isGreaterThanOrEqualTo(32.0);
      assertThat(g).isGreaterThanOrEqualTo(8);
    }
    assertThat(QuantizeOptions.defaultGroupSize(1433)).isEqualTo(9);
  }

  @Test
  void prepareWithALayoutWritesTheStoreQuantizeWrites() throws IOException {
    // one vertex in 20 is a training vertex: seed-groups moves each one's two-hop rows to it
    StructType withSplit = V.add("split", DataTypes.StringType);
    List<Row> vs = new ArrayList<>();
    for (Row r : vertices) {
      vs.add(RowFactory.create(r.get(0), r.get(1), r.getLong(0) % 20 == 0 ? "train" : "none"));
    }
    Path f32Split = dir.resolve("f32-split");
    Path prepared = dir.resolve("p-int8-seed-groups");
    for (Path out : new Path[] {f32Split, prepared}) {
      Fanout.get(spark)
          .prepare(spark.createDataFrame(vs, withSplit), spark.createDataFrame(edges, E))
          .option("partitions", "3")
          .option("feature-encoding", out == prepared ? "int8" : "f32")
          .option("feature-layout", out == prepared ? "seed-groups" : "identity")
          .output(out.toString())
          .execute();
    }
    Path quantized = dir.resolve("q-int8-seed-groups");
    Path plain = dir.resolve("q-int8-split");
    for (Path out : new Path[] {quantized, plain}) {
      Fanout.get(spark)
          .quantize(f32Split.toString())
          .encoding("int8")
          .option("feature-layout", out == quantized ? "seed-groups" : "identity")
          .output(out.toString())
          .execute();
    }
    StoreManifest m = StoreManifest.read(prepared);
    assertThat(m.featureLayout).isEqualTo("seed-groups");
    assertThat(m.options).containsEntry("feature-layout", "seed-groups");
    assertThat(StoreManifest.read(f32Split).options).doesNotContainKey("feature-layout");
    assertThat(m.fingerprint()).isEqualTo(StoreManifest.read(quantized).fingerprint());
    for (String rel : new String[] {StoreLayout.featuresFile(1), StoreLayout.FEATURE_ORDER}) {
      assertThat(bytes(prepared, rel)).as(rel).isEqualTo(bytes(quantized, rel));
    }
    assertThat(bytes(prepared, StoreLayout.featuresFile(1)))
        .isNotEqualTo(bytes(plain, StoreLayout.featuresFile(1)));
    assertThat(rows(prepared)).isEqualTo(rows(plain));
    // laid out in a Spark task per partition: the bytes of the one-JVM path over the whole graph
    Path oneJvm = OneJvmLayout.of(plain, FeatureLayoutKind.SEED_GROUPS, dir);
    OneJvmLayout.assertSameFeatureFiles(prepared, oneJvm);
    OneJvmLayout.assertSameFeatureFiles(quantized, oneJvm);
  }

  @Test
  void refusals() {
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .quantize(f32.toString())
                    .encoding("int3")
                    .output(dir.resolve("bad").toString())
                    .execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("feature-encoding")
        .hasMessageContaining("f32|f16|int8|int4|pq");
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .quantize(f32.toString())
                    .encoding("pq")
                    .option("pq-sample-rows", "100")
                    .output(dir.resolve("bad").toString())
                    .execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("--pq-sample-rows must be >= 256, got 100");
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .quantize(f32.toString())
                    .encoding("paper=int8")
                    .output(dir.resolve("bad").toString())
                    .execute())
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("--feature-encoding paper=int8 names vertex types, but " + f32)
        .hasMessageContaining("is a one-table store; give one encoding");
    assertThat(Files.exists(dir.resolve("bad"))).isFalse();
    Path int8 = dir.resolve("r-int8");
    Fanout.get(spark).quantize(f32.toString()).encoding("int8").output(int8.toString()).execute();
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .quantize(int8.toString())
                    .encoding("pq")
                    .output(dir.resolve("twice").toString())
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("features are stored as int8; quantize reads f32 stores only");
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .quantize(f32.toString())
                    .encoding("int8")
                    .output(f32.toString())
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--output " + f32 + " is the input STORE " + f32);
  }
}
