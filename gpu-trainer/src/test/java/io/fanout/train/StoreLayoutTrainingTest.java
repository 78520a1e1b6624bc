package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureFiles;
import io.fanout.features.ReadCoalescing;
import io.fanout.features.RowCache;
import io.fanout.features.StoreFeatureRows;
import io.fanout.graph.FeatureRelayout;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.GraphStore;
import io.fanout.graph.StoreFixtures;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CpuBackend;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store whose feature rows are kept in a recorded layout ({@code prepare} or {@code quantize
 * --feature-layout}, {@code neighborhood} and {@code seed-groups}) trains the model bits of the
 * same store with rows at their ids: through the store's gather, and through a {@code belady} cache
 * reading the files with merged {@code O_DIRECT} reads. The rows did move: a file reader that
 * ignored the layout would read other rows.
 */
class StoreLayoutTrainingTest {
  @TempDir Path tmp;

  private static final int[] PARTS = {1200, 1800};

  @Test
  void theLayoutDoesNotChangeTheModel() throws Exception {
    TestData d = TestData.random(3000, 8, 37, 7);
    int n = d.features.n;
    int dim = d.features.dim;
    StoreFixtures.Graph g = graph(d);
    Path plainDir = tmp.resolve("plain");
    StoreFixtures.write(plainDir, g, PARTS);
    ModelConfig cfg = new ModelConfig("sage", dim, 32, d.classes, 2, 0.5f, "relu", "none");
    float[] memory = train(d, d.features, cfg, null, tmp.resolve("memory"));
    for (FeatureLayoutKind kind :
        new FeatureLayoutKind[] {FeatureLayoutKind.NEIGHBORHOOD, FeatureLayoutKind.SEED_GROUPS}) {
      Path movedDir = tmp.resolve("moved-" + kind.id());
      int[] positions;
      try (GraphStore plain = GraphStore.open(plainDir)) {
        positions = FeatureRelayout.positions(plain, kind, 2);
      }
      StoreFixtures.write(movedDir, g, PARTS, null, kind, positions, 2);
      int moved = 0;
      for (int v = 0; v < n; v++) {
        moved += positions[v] != v ? 1 : 0;
      }
      assertThat(moved).as(kind.id()).isGreaterThan(n / 2);
      try (GraphStore plain = GraphStore.open(plainDir);
          GraphStore laidOut = GraphStore.open(movedDir)) {
        assertThat(train(d, laidOut.features(), cfg, null, tmp.resolve("gather-" + kind.id())))
            .as(kind.id())
            .isEqualTo(memory);
        for (GraphStore s : new GraphStore[] {plain, laidOut}) {
          try (RowCache cache =
              new RowCache(
                  FeatureFiles.open(s, 3, true, ReadCoalescing.DIRECT),
                  CachePolicy.BELADY,
                  n / 10L * dim * 4)) {
            assertThat(cache.files().layout().isIdentity()).isEqualTo(s == plain);
            Path dir = tmp.resolve("cache-" + kind.id() + (s == plain));
            float[] got = train(d, s.features(), cfg, cache, dir);
            assertThat(got).as("cache, layout %s", s.manifest().featureLayout).isEqualTo(memory);
            assertThat(cache.misses()).isPositive();
          }
        }
        // The CPU backends read mapped rows through the store's gather, which maps the ids.
        try (Backend cpu = new CpuBackend()) {
          StoreFeatureRows.map(cpu, laidOut).close();
        }
      }
    }
  }

  @Test
  void aDeviceReadingRowsByIdIsRefusedOnALaidOutStore() {
    TestData d = TestData.random(400, 4, 5, 3);
    StoreFixtures.Graph g = graph(d);
    Path dir = tmp.resolve("moved");
    int[] positions = new int[400];
    for (int v = 0; v < 400; v++) {
      positions[v] = 399 - v;
    }
    StoreFixtures.write(
        dir, g, new int[] {400}, null, FeatureLayoutKind.NEIGHBORHOOD, positions, 1);
    // A backend that is not a CPU one: only its name is asked before the refusal.
    Backend device =
        (Backend)
            java.lang.reflect.Proxy.newProxyInstance(
                Backend.class.getClassLoader(),
                new Class<?>[] {Backend.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("name")) {
                    return "a device";
                  }
                  throw new UnsupportedOperationException(method.getName());
                });
    try (GraphStore s = GraphStore.open(dir)) {
      assertThatThrownBy(() -> StoreFeatureRows.map(device, s))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("layout neighborhood")
          .hasMessageContaining("a device");
    }
  }

  /** {@code d}'s CSR, features, labels and splits as a fixture graph. */
  private static StoreFixtures.Graph graph(TestData d) {
    int n = d.features.n;
    int dim = d.features.dim;
    int[][] rows = new int[n][];
    float[][] feats = new float[n][dim];
    int[] labels = new int[n];
    byte[] splits = new byte[n];
    for (int v = 0; v < n; v++) {
      int deg = (int) d.csr.degree(v);
      rows[v] = new int[deg];
      for (int i = 0; i < deg; i++) {
        rows[v][i] = d.csr.neighbor(d.csr.rowStart(v) + i);
      }
      System.arraycopy(d.features.rows, v * dim, feats[v], 0, dim);
      labels[v] = d.vertices.label(v);
      splits[v] = d.vertices.split(v);
    }
    return new StoreFixtures.Graph(rows, feats, labels, splits);
  }

  private static float[] train(
      TestData d, FeatureTable features, ModelConfig cfg, RowCache cache, Path dir)
      throws Exception {
    GnnModel model = new GnnModel(cfg, new CpuBackend());
    model.init(3);
    TrainOptions opts = new TrainOptions(2, 0.01f, 5e-4f, LrSchedule.CONSTANT, 0);
    SampledEpochs data =
        d.trainEpochs(features, new int[] {10, 5}, 256, 11, "none", 2).cache(cache);
    try (Trainer t = new Trainer(model, opts, GradientReducer.LOCAL)) {
      t.fit(data, null, dir, false, Map.of(), null, 0);
      return model.params();
    } finally {
      model.close();
    }
  }
}
