package io.fanout.jobs.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.FeatureRowOrder;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedSchema;
import io.fanout.graph.VertexTable;
import io.fanout.spark.EvaluateResult;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.spark.generate.TypedGraphGenerator;
import io.fanout.spark.generate.TypedGraphLayout;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.Checkpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
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
 * {@code prepare --feature-layout seed-groups} and {@code neighborhood} on a generated typed graph:
 * target {@code T} (3 classes, features), {@code A -> T}, {@code B -> A} ({@code B} without
 * features: walked through, not laid out), {@code C -> A}, {@code C -> B} and {@code T -> T}, two
 * partitions per type. Each featured type's stored order is the first-use order a plain per-seed
 * walk gives (for {@code neighborhood}, regrouped by a plain count of the groups of the vertices
 * that draw each row); the files do not depend on the input's task count (nor the orders on the
 * encoding); {@code quantize} writes the store {@code prepare} writes; and sample, train (also
 * through the feature cache, and on the seed-groups store with the rows read in place by the
 * backend), evaluate and infer give the model and predictions of the identity store.
 */
@Tag("slow") // five typed prepares, two quantize runs, five trainings: over 15 s
class TypedFeatureLayoutTest {
  static final String TYPES = "T:300:4,A:200:8,B:150:0,C:120:5";
  static final String RELATIONS = "A>T:1500:1,B>A:600:1,C>A:400:1,C>B:300:1,T>T:400:0";
  static final String[] NAMES = {"A_T", "B_A", "C_A", "C_B", "T_T"};
  static final String[][] ENDS = {{"A", "T"}, {"B", "A"}, {"C", "A"}, {"C", "B"}, {"T", "T"}};

  static SparkSession spark;
  @TempDir static Path tmp;
  static TypedGraphGenerator gen;
  static Path plain;
  static Path laidOut;
  static Path neighborhood;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("TypedFeatureLayoutTest");
    gen = new TypedGraphGenerator(TypedGraphLayout.parse(TYPES, RELATIONS, "T", 16, 0.8), 3, 5);
    plain = prepare("plain.store", 2, "identity", "f32").execute().store();
    laidOut = prepare("laid-out.store", 2, "seed-groups", "f32").execute().store();
    neighborhood = prepare("neighborhood.store", 2, "neighborhood", "f32").execute().store();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static PrepareAction prepare(String name, int tasks, String layout, String encoding) {
    PrepareAction a = Fanout.get(spark).prepare();
    String[] types = {"T", "A", "B", "C"};
    for (int t = 0; t < types.length; t++) {
      a.vertices(types[t], gen.vertices(spark, tasks, t));
    }
    for (int r = 0; r < NAMES.length; r++) {
      a.edges(NAMES[r], ENDS[r][0], ENDS[r][1], gen.edges(spark, tasks, r));
    }
    return a.option("partitions", "2")
        .option("feature-layout", layout)
        .option("feature-encoding", encoding)
        .output(tmp.resolve(name).toString());
  }

  /**
   * The reference: seeds (T's training vertices) in id order, each walked breadth-first two hops
   * over every relation into the reached vertex's type; a vertex keeps the first (seed, hop) that
   * reaches it. Per type and partition: rows by (seed, hop, id), then the unreached by id.
   */
  static int[][] expectedPositions(TypedGraphStore g) {
    return positionsBy(g, firstUseKeys(g), firstUseKeys(g));
  }

  /** Each vertex's first-use key (3 seed + hop), per type; Long.MAX_VALUE for the unreached. */
  static long[][] firstUseKeys(TypedGraphStore g) {
    TypedSchema s = g.schema();
    int types = s.numTypes();
    long[][] key = new long[types][];
    for (int t = 0; t < types; t++) {
      key[t] = new long[(int) s.type(t).count()];
      Arrays.fill(key[t], Long.MAX_VALUE);
    }
    int target = s.typeIndex("T");
    VertexTable tv = g.vertices(target);
    for (int seed = 0; seed < tv.numVertices(); seed++) {
      if (tv.split(seed) != StoreLayout.SPLIT_TRAIN) {
        continue;
      }
      List<int[]> level = List.of(new int[] {target, seed});
      reach(key, level, seed, 0);
      for (int hop = 1; hop <= 2; hop++) {
        List<int[]> next = new ArrayList<>();
        for (int[] u : level) {
          for (int r : s.relationsInto(u[0])) {
            CsrGraph csr = g.inNeighbors(r);
            for (long e = csr.rowStart(u[1]); e < csr.rowEnd(u[1]); e++) {
              next.add(new int[] {s.relation(r).srcType(), csr.neighbor(e)});
            }
          }
        }
        reach(key, next, seed, hop);
        level = next;
      }
    }
    return key;
  }

  /**
   * The neighborhood reference: a vertex's group is its key's seed, or (unreached) the target's
   * vertex count plus its global id; each row counts the groups of its out-neighbors over every
   * relation (itself left out) and its own group once more, and joins the group of highest count,
   * the smallest on a tie. Per type and partition: rows by (joined group, key, id).
   */
  @SuppressWarnings("unchecked")
  static int[][] expectedNeighborhoodPositions(TypedGraphStore g) {
    TypedSchema s = g.schema();
    long[][] key = firstUseKeys(g);
    int types = s.numTypes();
    long seeds = s.type(s.typeIndex("T")).count();
    long[] base = new long[types];
    for (int t = 1; t < types; t++) {
      base[t] = base[t - 1] + s.type(t - 1).count();
    }
    long[][] group = new long[types][];
    List<Map<Long, Integer>>[] counts = new List[types];
    for (int t = 0; t < types; t++) {
      group[t] = new long[key[t].length];
      counts[t] = new ArrayList<>();
      for (int v = 0; v < key[t].length; v++) {
        group[t][v] = key[t][v] == Long.MAX_VALUE ? seeds + base[t] + v : key[t][v] / 3;
        Map<Long, Integer> c = new HashMap<>();
        c.put(group[t][v], 1);
        counts[t].add(c);
      }
    }
    for (int r = 0; r < s.numRelations(); r++) {
      int src = s.relation(r).srcType();
      int dst = s.relation(r).dstType();
      CsrGraph csr = g.inNeighbors(r);
      for (int x = 0; x < key[dst].length; x++) {
        for (long e = csr.rowStart(x); e < csr.rowEnd(x); e++) {
          int u = csr.neighbor(e);
          if (src != dst || u != x) {
            counts[src].get(u).merge(group[dst][x], 1, Integer::sum);
          }
        }
      }
    }
    long[][] joined = new long[types][];
    for (int t = 0; t < types; t++) {
      joined[t] = new long[key[t].length];
      for (int v = 0; v < key[t].length; v++) {
        Map<Long, Integer> c = counts[t].get(v);
        long best = group[t][v];
        for (Map.Entry<Long, Integer> e : c.entrySet()) {
          int bs = c.get(best);
          if (e.getValue() > bs || (e.getValue() == bs && e.getKey() < best)) {
            best = e.getKey();
          }
        }
        joined[t][v] = best;
      }
    }
    return positionsBy(g, joined, key);
  }

  /** Per type and partition, rows ordered by {@code first}, then {@code second}, then id. */
  static int[][] positionsBy(TypedGraphStore g, long[][] first, long[][] second) {
    int types = g.schema().numTypes();
    int[][] positions = new int[types][];
    for (int t = 0; t < types; t++) {
      long[] starts = g.partitionStarts(t);
      positions[t] = new int[first[t].length];
      for (int p = 0; p + 1 < starts.length; p++) {
        final long[] k = first[t];
        final long[] k2 = second[t];
        Integer[] rows = new Integer[(int) (starts[p + 1] - starts[p])];
        for (int i = 0; i < rows.length; i++) {
          rows[i] = (int) starts[p] + i;
        }
        Arrays.sort(
            rows,
            (x, y) ->
                k[x] != k[y]
                    ? Long.compare(k[x], k[y])
                    : k2[x] != k2[y] ? Long.compare(k2[x], k2[y]) : Integer.compare(x, y));
        for (int i = 0; i < rows.length; i++) {
          positions[t][rows[i]] = (int) starts[p] + i;
        }
      }
    }
    return positions;
  }

  private static void reach(long[][] key, List<int[]> vertices, int seed, int hop) {
    for (int[] u : vertices) {
      long k = 3L * seed + hop;
      key[u[0]][u[1]] = Math.min(key[u[0]][u[1]], k);
    }
  }

  @Test
  void eachFeaturedTypeKeepsItsRowsInFirstUseOrder() throws IOException {
    StoreManifest m = StoreManifest.read(laidOut);
    assertThat(m.types)
        .extracting(t -> t.featureLayout)
        .containsExactly("seed-groups", "seed-groups", null, "seed-groups");
    assertThat(m.options).containsEntry("feature-layout", "seed-groups");
    assertThat(StoreManifest.read(plain).options).doesNotContainKey("feature-layout");
    assertThat(StoreManifest.read(plain).types)
        .extracting(t -> t.featureLayout)
        .containsOnlyNulls();
    try (TypedGraphStore ref = TypedGraphStore.open(plain, true);
        TypedGraphStore got = TypedGraphStore.open(laidOut, true)) {
      int[][] expected = expectedPositions(ref);
      TypedSchema s = ref.schema();
      for (int t = 0; t < s.numTypes(); t++) {
        String name = s.type(t).name();
        FeatureRowOrder order = got.featureRowOrder(t);
        if (!s.type(t).hasFeatures()) {
          assertThat(order).as(name).isNull();
          continue;
        }
        assertThat(ref.featureRowOrder(t).isIdentity()).isTrue();
        int moved = 0;
        for (int v = 0; v < expected[t].length; v++) {
          assertThat(order.position(v)).as("%s row %d", name, v).isEqualTo(expected[t][v]);
          moved += expected[t][v] != v ? 1 : 0;
        }
        assertThat(moved).as(name + " rows moved").isGreaterThan(expected[t].length / 4);
        assertThat(rows(got, t)).as(name).isDeepEqualTo(rows(ref, t));
        Path file = Path.of(StoreLayout.typeDir(name), StoreLayout.featuresFile(0));
        assertThat(bytes(laidOut, file)).as(name).isNotEqualTo(bytes(plain, file));
      }
    }
  }

  @Test
  void neighborhoodRegroupsEachFeaturedTypesRowsAsAPlainCountSays() throws IOException {
    StoreManifest m = StoreManifest.read(neighborhood);
    assertThat(m.types)
        .extracting(t -> t.featureLayout)
        .containsExactly("neighborhood", "neighborhood", null, "neighborhood");
    assertThat(m.options).containsEntry("feature-layout", "neighborhood");
    try (TypedGraphStore ref = TypedGraphStore.open(plain, true);
        TypedGraphStore seedGroups = TypedGraphStore.open(laidOut, true);
        TypedGraphStore got = TypedGraphStore.open(neighborhood, true)) {
      int[][] expected = expectedNeighborhoodPositions(ref);
      TypedSchema s = ref.schema();
      int unlikeSeedGroups = 0;
      for (int t = 0; t < s.numTypes(); t++) {
        String name = s.type(t).name();
        if (!s.type(t).hasFeatures()) {
          assertThat(got.featureRowOrder(t)).as(name).isNull();
          continue;
        }
        FeatureRowOrder order = got.featureRowOrder(t);
        for (int v = 0; v < expected[t].length; v++) {
          assertThat(order.position(v)).as("%s row %d", name, v).isEqualTo(expected[t][v]);
          unlikeSeedGroups +=
              order.position(v) != seedGroups.featureRowOrder(t).position(v) ? 1 : 0;
        }
        assertThat(rows(got, t)).as(name).isDeepEqualTo(rows(ref, t));
      }
      // the regrouping moves rows: the two layouts differ
      assertThat(unlikeSeedGroups).isPositive();
    }
  }

  @Test
  void neighborhoodFilesDoNotDependOnTheTaskCountAndQuantizeWritesWhatPrepareWrites()
      throws IOException {
    Path prepared = prepare("nbr-int8.store", 5, "neighborhood", "A=int8").execute().store();
    for (Path rel : featureFiles(neighborhood)) {
      if (!rel.startsWith(StoreLayout.typeDir("A")) || rel.endsWith("layout.perm")) {
        assertThat(bytes(prepared, rel)).as(rel.toString()).isEqualTo(bytes(neighborhood, rel));
      }
    }
    Path quantized =
        Fanout.get(spark)
            .quantize(plain.toString())
            .encoding("A=int8")
            .option("feature-layout", "neighborhood")
            .output(tmp.resolve("q-nbr-int8.store").toString())
            .execute()
            .store();
    List<Path> files = featureFiles(prepared);
    assertThat(files).isEqualTo(featureFiles(quantized));
    for (Path rel : files) {
      assertThat(bytes(quantized, rel)).as(rel.toString()).isEqualTo(bytes(prepared, rel));
    }
    assertThat(StoreManifest.read(quantized).types)
        .extracting(t -> t.featureLayout)
        .containsExactly("neighborhood", "neighborhood", null, "neighborhood");
  }

  @Test
  void theFilesDoNotDependOnTheTaskCountAndQuantizeWritesWhatPrepareWrites() throws IOException {
    // five input tasks instead of two, and A's rows in int8: the orders and the f32 types' files
    // are those of the two-task store, and quantize of the identity store writes the same store
    Path prepared = prepare("int8.store", 5, "seed-groups", "A=int8").execute().store();
    for (Path rel : featureFiles(laidOut)) {
      if (!rel.startsWith(StoreLayout.typeDir("A")) || rel.endsWith("layout.perm")) {
        assertThat(bytes(prepared, rel)).as(rel.toString()).isEqualTo(bytes(laidOut, rel));
      }
    }
    Path quantized =
        Fanout.get(spark)
            .quantize(plain.toString())
            .encoding("A=int8")
            .option("feature-layout", "seed-groups")
            .output(tmp.resolve("q-int8.store").toString())
            .execute()
            .store();
    List<Path> files = featureFiles(prepared);
    assertThat(files)
        .isEqualTo(featureFiles(quantized))
        .contains(Path.of(StoreLayout.typeDir("A"), StoreLayout.FEATURE_ORDER));
    for (Path rel : files) {
      assertThat(bytes(quantized, rel)).as(rel.toString()).isEqualTo(bytes(prepared, rel));
    }
    assertThat(StoreManifest.read(quantized).types)
        .extracting(t -> t.featureLayout)
        .containsExactly("seed-groups", "seed-groups", null, "seed-groups");
  }

  @Test
  void trainingEvaluationAndInferenceGiveTheIdentityStoresResults() throws IOException {
    Map<String, float[]> models = new HashMap<>();
    Map<String, List<Row>> predictions = new HashMap<>();
    Map<String, Double> f1 = new HashMap<>();
    for (Path store : new Path[] {plain, laidOut, neighborhood}) {
      String name = store.getFileName().toString();
      Path shards = tmp.resolve(name + ".shards");
      Fanout.get(spark)
          .sample(store.toString())
          .output(shards.toString())
          .option("split", "train")
          .option("batch-size", "32")
          .option("fanouts", "*=4,3")
          .option("epochs", "1")
          .option("seed", "3")
          .execute();
      Path md = tmp.resolve(name + ".model");
      Fanout.get(spark)
          .train(store.toString(), shards.toString())
          .option("model-dir", md.toString())
          .option("model", "rgcn")
          .option("hidden", "8")
          .option("lr", "0.01")
          .option("epochs", "2")
          .option("seed", "1")
          .execute();
      Checkpoint ck = Checkpoint.read(md);
      float[] all = concat(ck.params(), ck.firstMoment(), ck.secondMoment());
      models.put(name, all);
      EvaluateResult r = Fanout.get(spark).evaluate(store.toString(), md.toString()).execute();
      f1.put(name, r.microF1("test"));
      Path pred = tmp.resolve(name + ".pred");
      Fanout.get(spark).infer(store.toString(), md.toString()).output(pred.toString()).execute();
      Dataset<Row> p = spark.read().parquet(pred.toString()).orderBy("dense_id");
      predictions.put(name, p.select("dense_id", "prediction", "probabilities").collectAsList());
    }
    String a = plain.getFileName().toString();
    for (Path laid : new Path[] {laidOut, neighborhood}) {
      String b = laid.getFileName().toString();
      assertThat(models.get(b)).as(b).isEqualTo(models.get(a));
      assertThat(f1.get(b)).as(b).isEqualTo(f1.get(a));
      assertThat(predictions.get(b)).as(b).hasSize(300).isEqualTo(predictions.get(a));

      // the feature cache reads the laid-out files through the recorded order
      Path cached = tmp.resolve(b + ".cached.model");
      Fanout.get(spark)
          .train(laid.toString(), tmp.resolve(b + ".shards").toString())
          .option("model-dir", cached.toString())
          .option("model", "rgcn")
          .option("hidden", "8")
          .option("lr", "0.01")
          .option("epochs", "2")
          .option("seed", "1")
          .option("feature-cache", "belady")
          .option("feature-cache-bytes", "4096")
          .execute();
      Checkpoint ck = Checkpoint.read(cached);
      assertThat(concat(ck.params(), ck.firstMoment(), ck.secondMoment()))
          .as(b + " through the cache")
          .isEqualTo(models.get(a));
    }

    // so do the rows the backend reads in place, through each type's gather
    String b = laidOut.getFileName().toString();
    for (String[] run : new String[][] {{"zero-copy", "cpu"}, {"device", "cpu-checked"}}) {
      Path md = tmp.resolve(b + "." + run[0] + ".model");
      Fanout.get(spark)
          .train(laidOut.toString(), tmp.resolve(b + ".shards").toString())
          .option("model-dir", md.toString())
          .option("model", "rgcn")
          .option("hidden", "8")
          .option("lr", "0.01")
          .option("epochs", "2")
          .option("seed", "1")
          .option("feature-access", run[0])
          .option("backend", run[1])
          .execute();
      Checkpoint z = Checkpoint.read(md);
      assertThat(concat(z.params(), z.firstMoment(), z.secondMoment()))
          .as(run[0])
          .isEqualTo(models.get(a));
    }
  }

  @Test
  void whatIsNotBuiltIsRefusedWithOneLine() {
    PrepareAction unlabelled =
        Fanout.get(spark)
            .prepare()
            .vertices("T", gen.vertices(spark, 2, 0).drop("label", "split"))
            .vertices("A", gen.vertices(spark, 2, 1))
            .edges("A_T", "A", "T", gen.edges(spark, 2, 0))
            .option("feature-layout", "seed-groups")
            .output(tmp.resolve("u.store").toString());
    assertThatThrownBy(unlabelled::execute)
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("the one labelled type; the graph has none");
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .quantize(laidOut.toString())
                    .encoding("A=int8")
                    .output(tmp.resolve("q-bad.store").toString())
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("the feature rows of type 'T' are stored in layout seed-groups")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    assertThat(Files.exists(tmp.resolve("u.store").resolve("manifest.json"))).isFalse();
  }

  static float[][] rows(TypedGraphStore g, int t) {
    FeatureTable f = g.features(t);
    int n = f.numVertices();
    int[] ids = new int[n];
    for (int i = 0; i < n; i++) {
      ids[i] = i;
    }
    float[] flat = new float[n * f.dim()];
    f.gather(ids, 0, n, flat, 0);
    float[][] out = new float[n][];
    for (int i = 0; i < n; i++) {
      out[i] = Arrays.copyOfRange(flat, i * f.dim(), (i + 1) * f.dim());
    }
    return out;
  }

  /** The feature files (rows, parameters, orders) of {@code store}, relative to its data folder. */
  static List<Path> featureFiles(Path store) throws IOException {
    Path data = StoreManifest.read(store).dataRoot(store);
    try (var s = Files.walk(data)) {
      return s.filter(Files::isRegularFile)
          .map(data::relativize)
          .filter(p -> p.toString().contains("/" + StoreLayout.FEATURES_DIR + "/"))
          .sorted()
          .toList();
    }
  }

  static byte[] bytes(Path store, Path rel) throws IOException {
    return Files.readAllBytes(StoreManifest.read(store).dataRoot(store).resolve(rel));
  }

  static float[] concat(float[]... parts) {
    int n = 0;
    for (float[] p : parts) {
      n += p.length;
    }
    float[] out = new float[n];
    int at = 0;
    for (float[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }
}
