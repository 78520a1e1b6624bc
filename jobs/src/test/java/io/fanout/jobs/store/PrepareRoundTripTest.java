package io.fanout.jobs.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.GraphStore;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareResult;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.linalg.Vectors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded random graphs through {@code prepare}, read back with {@link GraphStore} and compared with
 * a reference built from the edge list in plain Java.
 */
@Tag("slow")
class PrepareRoundTripTest {
  static SparkSession spark;
  @TempDir static Path tmp;
  static int runs;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("PrepareRoundTripTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** A random graph in heap form: original ids, features, labels, splits, edge list. */
  static final class RandomGraph {
    final List<Object> ids = new ArrayList<>();
    final Map<Object, float[]> features = new HashMap<>();
    final Map<Object, Integer> labels = new HashMap<>();
    final Map<Object, String> splits = new HashMap<>();
    final List<Object[]> edges = new ArrayList<>();
    final DataType idType;

    RandomGraph(long seed, int n, int m, int dim, String idKind) {
      SplittableRandom r = new SplittableRandom(seed);
      idType =
          idKind.equals("string")
              ? DataTypes.StringType
              : idKind.equals("int") ? DataTypes.IntegerType : DataTypes.LongType;
      Set<Object> seen = new LinkedHashSet<>();
      while (seen.size() < n) {
        long raw = r.nextLong(-1_000_000_000_000L, 1_000_000_000_000L);
        Object id =
            idKind.equals("string")
                ? "v" + Long.toString(raw, 36)
                : idKind.equals("int") ? (Object) (int) (raw % 1_000_000_000) : (Object) raw;
        seen.add(id);
      }
      ids.addAll(seen);
      String[] s = {"train", "val", "test", "none"};
      for (Object id : ids) {
        float[] f = new float[dim];
        for (int j = 0; j < dim; j++) {
          f[j] = (float) r.nextGaussian();
        }
        features.put(id, f);
        labels.put(id, r.nextInt(6) - 1);
        splits.put(id, s[r.nextInt(4)]);
      }
      for (int k = 0; k < m && n > 0; k++) {
        // a small pool of endpoints makes duplicates and self-loops common
        int a = r.nextInt(n);
        int b = r.nextInt(4) == 0 ? a : r.nextInt(n);
        edges.add(new Object[] {ids.get(a), ids.get(b)});
        if (r.nextInt(10) == 0) {
          edges.add(new Object[] {ids.get(a), ids.get(b)});
        }
      }
    }

    Dataset<Row> vertexFrame(String featureKind) {
      DataType ft =
          featureKind.equals("double")
              ? DataTypes.createArrayType(DataTypes.DoubleType)
              : featureKind.startsWith("vector")
                  ? SQLDataTypes.VectorType()
                  : DataTypes.createArrayType(DataTypes.FloatType);
      StructType schema =
          new StructType()
              .add("id", idType)
              .add("label", DataTypes.IntegerType)
              .add("split", DataTypes.StringType)
              .add("features", ft);
      List<Row> rows = new ArrayList<>();
      for (Object id : ids) {
        float[] f = features.get(id);
        Object feat;
        if (featureKind.equals("double")) {
          List<Double> d = new ArrayList<>();
          for (float x : f) {
            d.add((double) x);
          }
          feat = d;
        } else if (featureKind.equals("vector-dense")) {
          double[] d = new double[f.length];
          for (int j = 0; j < f.length; j++) {
            d[j] = f[j];
          }
          feat = Vectors.dense(d);
        } else if (featureKind.equals("vector-sparse")) {
          double[] d = new double[f.length];
          for (int j = 0; j < f.length; j++) {
            d[j] = j % 3 == 0 ? f[j] : 0;
            f[j] = (float) d[j];
          }
          feat = Vectors.dense(d).toSparse();
        } else {
          List<Float> l = new ArrayList<>();
          for (float x : f) {
            l.add(x);
          }
          feat = l;
        }
        rows.add(RowFactory.create(id, labels.get(id), splits.get(id), feat));
      }
      return spark.createDataFrame(rows, schema).repartition(3);
    }

    Dataset<Row> edgeFrame() {
      StructType schema = new StructType().add("src", idType).add("dst", idType);
      List<Row> rows = new ArrayList<>();
      for (Object[] e : edges) {
        rows.add(RowFactory.create(e[0], e[1]));
      }
      return spark.createDataFrame(rows, schema).repartition(2);
    }

    /** Reference: for each destination id, its sorted list of source ids (as strings). */
    Map<String, List<String>> reference(boolean undirected, boolean dedupe, boolean dropLoops) {
      Map<String, List<String>> in = new TreeMap<>();
      for (Object[] e : edges) {
        String s = e[0].toString();
        String d = e[1].toString();
        if (dropLoops && s.equals(d)) {
          continue;
        }
        in.computeIfAbsent(d, k -> new ArrayList<>()).add(s);
        if (undirected && !s.equals(d)) {
          in.computeIfAbsent(s, k -> new ArrayList<>()).add(d);
        }
      }
      for (Map.Entry<String, List<String>> e : in.entrySet()) {
        List<String> l = e.getValue();
        if (dedupe) {
          l = new ArrayList<>(new LinkedHashSet<>(l));
        }
        l.sort(null);
        e.setValue(l);
      }
      return in;
    }
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    // size, edges, dim, id kind, partitions, partitioner, undirected, dedupe, drop loops
    for (int mask = 0; mask < 8; mask++) {
      boolean u = (mask & 1) != 0;
      boolean d = (mask & 2) != 0;
      boolean l = (mask & 4) != 0;
      out.add(Arguments.of(10, 30, 3, mask % 2 == 0 ? "long" : "string", 3, "hash", u, d, l));
    }
    out.add(Arguments.of(1, 0, 2, "long", 1, "hash", false, false, false));
    out.add(Arguments.of(1, 3, 2, "string", 2, "hash", true, true, false));
    out.add(Arguments.of(1, 3, 0, "long", 1, "range", false, false, false));
    out.add(Arguments.of(5, 0, 4, "int", 7, "range", true, true, true));
    out.add(Arguments.of(10, 30, 2, "int", 4, "range", true, false, false));
    out.add(Arguments.of(10_000, 60_000, 8, "long", 5, "hash", true, true, true));
    out.add(Arguments.of(10_000, 60_000, 4, "string", 3, "hash", false, false, false));
    out.add(Arguments.of(10_000, 60_000, 4, "long", 4, "range", false, true, false));
    return out.stream();
  }

  @ParameterizedTest
  @MethodSource("cases")
  void csrMatchesReference(
      int n,
      int m,
      int dim,
      String idKind,
      int partitions,
      String partitioner,
      boolean undirected,
      boolean dedupe,
      boolean dropLoops)
      throws Exception {
    RandomGraph g = new RandomGraph(n * 1000L + m + partitions, n, m, dim, idKind);
    Path out = tmp.resolve("rt-" + runs++);
    PrepareResult r =
        Fanout.get(spark)
            .prepare(g.vertexFrame("float"), g.edgeFrame())
            .option("undirected", Boolean.toString(undirected))
            .option("dedupe", Boolean.toString(dedupe))
            .option("self-loops", dropLoops ? "drop" : "keep")
            .option("partitions", Integer.toString(partitions))
            .option("partitioner", partitioner)
            .output(out.toString())
            .execute();
    verify(g, out, r.manifest(), undirected, dedupe, dropLoops);
  }

  @ParameterizedTest
  @MethodSource("featureKinds")
  void featureTypesBecomeFloat32(String kind) throws Exception {
    RandomGraph g = new RandomGraph(77, 50, 100, 6, "long");
    Path out = tmp.resolve("feat-" + kind);
    Fanout.get(spark)
        .prepare(g.vertexFrame(kind), g.edgeFrame())
        .option("partitions", "2")
        .output(out.toString())
        .execute();
    verify(g, out, StoreManifest.read(out), false, false, false);
  }

  static Stream<String> featureKinds() {
    return Stream.of("double", "vector-dense", "vector-sparse");
  }

  @Test
  void sameInputsGiveByteIdenticalStores() throws Exception {
    RandomGraph g = new RandomGraph(5, 200, 1000, 3, "string");
    Path a = tmp.resolve("det-a");
    Path b = tmp.resolve("det-b");
    for (Path p : List.of(a, b)) {
      Fanout.get(spark)
          .prepare(g.vertexFrame("float"), g.edgeFrame())
          .option("undirected", "true")
          .option("partitions", "3")
          .output(p.toString())
          .execute();
    }
    StoreManifest ma = StoreManifest.read(a);
    StoreManifest mb = StoreManifest.read(b);
    assertThat(mb.toJson()).isEqualTo(ma.toJson());
    for (StoreManifest.FileEntry f : ma.files) {
      assertThat(
              Files.readAllBytes(io.fanout.store.StoreManifest.read(b).dataRoot(b).resolve(f.path)))
          .as(f.path)
          .isEqualTo(
              Files.readAllBytes(
                  io.fanout.store.StoreManifest.read(a).dataRoot(a).resolve(f.path)));
    }
  }

  static void verify(
      RandomGraph g,
      Path out,
      StoreManifest m,
      boolean undirected,
      boolean dedupe,
      boolean dropLoops) {
    int n = g.ids.size();
    // the id map: dense id -> original id
    List<Row> idmap =
        spark
            .read()
            .parquet(
                io.fanout.store.StoreManifest.read(out)
                    .dataRoot(out)
                    .resolve(StoreLayout.IDMAP_DIR)
                    .toString())
            .collectAsList();
    assertThat(idmap).hasSize(n);
    String[] orig = new String[n];
    Object[] origRaw = new Object[n];
    for (Row row : idmap) {
      int dense = row.getInt(row.fieldIndex("dense_id"));
      assertThat(orig[dense]).isNull();
      origRaw[dense] = row.get(row.fieldIndex("id"));
      orig[dense] = origRaw[dense].toString();
    }
    Map<String, List<String>> ref = g.reference(undirected, dedupe, dropLoops);
    try (GraphStore s = GraphStore.open(out)) {
      assertThat(s.verifyChecksums()).isEqualTo(m.files.size());
      CsrGraph csr = s.csr();
      assertThat(csr.numVertices()).isEqualTo(n);
      long expectedEdges = 0;
      for (List<String> l : ref.values()) {
        expectedEdges += l.size();
      }
      assertThat(csr.numEdges()).isEqualTo(expectedEdges).isEqualTo(m.edges);
      for (int v = 0; v < n; v++) {
        List<String> got = new ArrayList<>();
        int prev = -1;
        for (long p = csr.rowStart(v); p < csr.rowEnd(v); p++) {
          int u = csr.neighbor(p);
          assertThat(u).as("row %d sorted", v).isGreaterThanOrEqualTo(prev);
          prev = u;
          got.add(orig[u]);
        }
        got.sort(null);
        assertThat(got)
            .as("in-neighbors of %s", orig[v])
            .isEqualTo(ref.getOrDefault(orig[v], List.of()));
        assertThat(s.vertices().label(v)).isEqualTo(g.labels.get(origRaw[v]));
        assertThat(StoreLayout.splitName(s.vertices().split(v)))
            .isEqualTo(g.splits.get(origRaw[v]));
      }
      FeatureTable x = s.features();
      int dim = g.features.get(g.ids.get(0)).length;
      assertThat(x.dim()).isEqualTo(dim).isEqualTo(m.featureDim);
      if (dim > 0) {
        int[] all = new int[n];
        for (int i = 0; i < n; i++) {
          all[i] = i;
        }
        float[] rows = new float[n * dim];
        x.gather(all, 0, n, rows, 0);
        for (int v = 0; v < n; v++) {
          assertThat(Arrays.copyOfRange(rows, v * dim, v * dim + dim))
              .isEqualTo(g.features.get(origRaw[v]));
        }
      }
      // partitions own contiguous ranges, ascending by original id within each
      for (StoreManifest.Partition p : m.partitionTable) {
        for (long v = p.firstVertex + 1; v < p.firstVertex + p.numVertices; v++) {
          @SuppressWarnings({"unchecked", "rawtypes"})
          int c = ((Comparable) origRaw[(int) v - 1]).compareTo(origRaw[(int) v]);
          assertThat(c).as("partition %d ascending", p.index).isLessThan(0);
        }
      }
    }
  }
}
