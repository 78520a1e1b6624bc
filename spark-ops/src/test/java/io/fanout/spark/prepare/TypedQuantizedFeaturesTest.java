package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.TypedGraphStore;
import io.fanout.spark.EvaluateResult;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareResult;
import io.fanout.spark.TrainResult;
import io.fanout.spark.generate.TypedGraphGenerator;
import io.fanout.spark.generate.TypedGraphLayout;
import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed stores whose types keep quantized feature rows, on a generated typed graph: target {@code
 * T} (noise features, 3 classes) read through {@code A -> T} from {@code A}'s community features.
 * An int8 type gathers exactly the one-type dequantization of its f32 rows while the other type
 * stays f32 bit for bit; R-GCN trains on it to the f32 store's test Micro-F1; {@code quantize}
 * writes the store {@code prepare} writes with the same per-type {@code --feature-encoding}, and
 * trains on int4 and pq types too.
 */
@Tag("slow") // two typed prepares, two quantize runs and three trainings: over 15 s
class TypedQuantizedFeaturesTest {
  static final int T = 0;
  static final int A = 1;
  static final int T_DIM = 4;
  static final int A_DIM = 8;

  static SparkSession spark;
  @TempDir static Path tmp;

  /** The tables, built once: a DataFrame input is fingerprinted by its plan. */
  static Dataset<Row> tTable;

  static Dataset<Row> aTable;
  static Dataset<Row> edgeTable;
  static Path f32;
  static Path int8;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("TypedQuantizedFeaturesTest");
    TypedGraphGenerator gen =
        new TypedGraphGenerator(
            TypedGraphLayout.parse(
                "T:300:" + T_DIM + ",A:200:" + A_DIM, "A>T:3000:1", "T", 16, 0.8),
            3,
            11);
    tTable = gen.vertices(spark, 2, T);
    aTable = gen.vertices(spark, 2, A);
    edgeTable = gen.edges(spark, 2, 0);
    f32 = prepare("f32.store", "f32").store();
    int8 = prepare("int8.store", "A=int8").store();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static PrepareResult prepare(String name, String encoding) {
    return Fanout.get(spark)
        .prepare()
        .vertices("T", tTable)
        .vertices("A", aTable)
        .edges("A_T", "A", "T", edgeTable)
        .option("partitions", "2")
        .option("feature-encoding", encoding)
        .output(tmp.resolve(name).toString())
        .execute();
  }

  static PrepareResult quantize(String name, String encoding) {
    return quantize(f32, name, encoding, Map.of());
  }

  /** {@code quantize} of {@code source} into {@code name} with pq groups of 4 from 256 rows. */
  static PrepareResult quantize(
      Path source, String name, String encoding, Map<String, String> options) {
    Map<String, String> all = new HashMap<>(options);
    all.put("pq-sample-rows", "256");
    all.put("pq-group-size", "4");
    return Fanout.get(spark)
        .quantize(source.toString())
        .encoding(encoding)
        .options(all)
        .output(tmp.resolve(name).toString())
        .execute();
  }

  /** Every row of type {@code t} in {@code store}, decoded, by type-local dense id. */
  static float[][] rows(Path store, int t) {
    try (TypedGraphStore g = TypedGraphStore.open(store, true)) {
      FeatureTable f = g.features(t);
      int n = (int) g.schema().type(t).count();
      int dim = f.dim();
      int[] ids = new int[n];
      for (int i = 0; i < n; i++) {
        ids[i] = i;
      }
      float[] flat = new float[n * dim];
      f.gather(ids, 0, n, flat, 0);
      float[][] out = new float[n][];
      for (int i = 0; i < n; i++) {
        out[i] = java.util.Arrays.copyOfRange(flat, i * dim, (i + 1) * dim);
      }
      return out;
    }
  }

  /**
   * The one-type affine dequantization of {@code ref}, written out: per column {@code offset =
   * min}, {@code scale = (max - min) / levels}, {@code q = round((x - offset) / scale)} clamped to
   * {@code 0..levels}, decoded as {@code offset + scale * q} in float.
   */
  static float[][] dequantized(float[][] ref, int levels) {
    int dim = ref[0].length;
    float[][] out = new float[ref.length][dim];
    for (int c = 0; c < dim; c++) {
      float min = Float.POSITIVE_INFINITY;
      float max = Float.NEGATIVE_INFINITY;
      for (float[] row : ref) {
        min = Math.min(min, row[c]);
        max = Math.max(max, row[c]);
      }
      float scale = max > min ? (float) (((double) max - min) / levels) : 0f;
      for (int v = 0; v < ref.length; v++) {
        long q = scale == 0f ? 0 : Math.round(((double) ref[v][c] - min) / scale);
        q = Math.max(0, Math.min(levels, q));
        out[v][c] = min + scale * q;
      }
    }
    return out;
  }

  static EvaluateResult trainAndEvaluate(Path store, String name, int epochs) {
    Path shards = tmp.resolve(name + ".shards");
    Map<String, String> oneHop =
        Map.of("split", "train", "batch-size", "64", "fanouts", "*=-1", "epochs", "1", "seed", "3");
    Fanout.get(spark).sample(store.toString()).options(oneHop).output(shards.toString()).execute();
    Path md = tmp.resolve(name + ".model");
    Map<String, String> rgcn =
        Map.of("model", "rgcn", "hidden", "16", "dropout", "0", "lr", "0.01", "weight-decay", "0");
    TrainResult r =
        Fanout.get(spark)
            .train(store.toString(), shards.toString())
            .options(rgcn)
            .option("model-dir", md.toString())
            .option("epochs", String.valueOf(epochs))
            .option("seed", "1")
            .execute();
    assertThat(r.epochsRun()).isEqualTo(epochs);
    assertThat(r.finalLoss()).as(name + " loss").isFinite();
    return Fanout.get(spark).evaluate(store.toString(), md.toString()).execute();
  }

  @Test
  void anInt8TypeGathersTheDequantizedF32RowsAndTheOtherTypeStaysF32() {
    StoreManifest m = StoreManifest.read(int8);
    assertThat(m.types).extracting(t -> t.featureEncoding).containsExactly("f32", "int8");
    try (TypedGraphStore g = TypedGraphStore.open(int8, true)) {
      assertThat(g.featureParams(A).encoding).isEqualTo(StoreLayout.ENCODING_INT8);
      assertThat(g.featureParams(T).encoding).isEqualTo(StoreLayout.ENCODING_F32);
    }
    float[][] ref = rows(f32, A);
    float[][] got = rows(int8, A);
    assertThat(got).isDeepEqualTo(dequantized(ref, 255));
    assertThat(java.util.Arrays.deepEquals(got, ref)).as("the encoding changed the rows").isFalse();
    assertThat(rows(int8, T)).isDeepEqualTo(rows(f32, T));
  }

  /**
   * An int8 type's decoded rows are within half a step ({@code (max - min) / 510}, about 0.02 here)
   * of the f32 rows, against unit Gaussian noise around each community's centroid: the two models
   * see the same graph and near-equal features, so their test Micro-F1 on the 60 or so test
   * vertices differs by a few vertices at most, while reading the rows wrongly (codes as values, or
   * another type's rows) breaks the floor or the agreement.
   */
  @Test
  void rgcnOnAnInt8TypeReachesTheF32ModelsMicroF1() {
    EvaluateResult a = trainAndEvaluate(f32, "f32", 30);
    EvaluateResult b = trainAndEvaluate(int8, "int8", 30);
    double fa = a.microF1("test");
    double fb = b.microF1("test");
    System.out.printf("typed rgcn test micro-F1: f32 %.4f, A=int8 %.4f%n", fa, fb);
    assertThat(fa).as("f32").isGreaterThanOrEqualTo(0.8);
    assertThat(fb).as("A=int8").isGreaterThanOrEqualTo(0.8);
    assertThat(Math.abs(fa - fb)).as("|f32 - int8|").isLessThanOrEqualTo(0.05);
  }

  @Test
  void quantizeWritesTheStorePrepareWritesWithTheSameEncodings() throws IOException {
    Path quantized = quantize("q-int8.store", "A=int8").store();
    StoreManifest p = StoreManifest.read(int8);
    StoreManifest q = StoreManifest.read(quantized);
    assertThat(q.options).isEqualTo(p.options);
    assertThat(q.files).usingRecursiveFieldByFieldElementComparator().isEqualTo(p.files);
    assertThat(q.toJson().replace(quantized.toString(), ""))
        .isEqualTo(p.toJson().replace(int8.toString(), ""));
    assertThat(q.fingerprint()).isEqualTo(p.fingerprint());
    for (String rel :
        new String[] {
          StoreLayout.typeDir("A") + "/" + StoreLayout.FEATURE_PARAMS,
          StoreLayout.typeDir("A") + "/" + StoreLayout.featuresFile(1)
        }) {
      assertThat(Files.readAllBytes(q.dataRoot(quantized).resolve(rel)))
          .as(rel)
          .isEqualTo(Files.readAllBytes(p.dataRoot(int8).resolve(rel)));
    }
  }

  @Test
  void quantizeToInt4AndPqPerTypeAndTrainOnIt() {
    Path store = quantize("q-mixed.store", "T=int4,A=pq").store();
    StoreManifest m = StoreManifest.read(store);
    assertThat(m.types).extracting(t -> t.featureEncoding).containsExactly("int4", "pq");
    assertThat(m.options)
        .containsEntry("feature-encoding", "T=int4,A=pq")
        .containsEntry("pq-group-size", "4");
    assertThat(rows(store, T)).isDeepEqualTo(dequantized(rows(f32, T), 15));
    // pq: each group of 4 columns decodes to one of the type's centroids
    float[][] pq = rows(store, A);
    try (TypedGraphStore g = TypedGraphStore.open(store, true)) {
      FeatureParams fp = g.featureParams(A);
      assertThat(fp.groups()).isEqualTo(2);
      float[] cb = fp.codebooks();
      for (float[] row : pq) {
        for (int grp = 0; grp < 2; grp++) {
          boolean found = false;
          for (int c = 0; c < fp.centroids && !found; c++) {
            int at = fp.centroids * grp * 4 + c * 4;
            found = java.util.Arrays.equals(row, grp * 4, grp * 4 + 4, cb, at, at + 4);
          }
          assertThat(found).as("group %d of a row is a centroid", grp).isTrue();
        }
      }
    }
    EvaluateResult r = trainAndEvaluate(store, "mixed", 2);
    assertThat(r.microF1("test")).isBetween(0.0, 1.0);
  }

  @Test
  void quantizeRefusesWhatItDoesNotBuildWithOneLine() {
    assertThatThrownBy(() -> quantize("bad1", "B=int8"))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("names type 'B', which the graph does not have");
    assertThatThrownBy(() -> quantize(int8, "bad3", "int4", Map.of()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("the features of type 'A' are stored as int8; quantize reads f32")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    for (String bad : new String[] {"bad1", "bad3"}) {
      assertThat(tmp.resolve(bad)).doesNotExist();
    }
  }
}
