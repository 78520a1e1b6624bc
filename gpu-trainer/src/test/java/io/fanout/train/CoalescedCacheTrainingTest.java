package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureFiles;
import io.fanout.features.ReadCoalescing;
import io.fanout.features.RowCache;
import io.fanout.features.RowLayout;
import io.fanout.graph.FeatureTable;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.store.FeatureParams;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Training through a {@code belady} cache with {@code O_DIRECT} reads gives the same model bits
 * whether the reads are merged or issued one per row, and whether the feature file keeps rows at
 * their ids or in another order given by a {@link RowLayout}: the same as training from the rows in
 * memory.
 */
class CoalescedCacheTrainingTest {
  @TempDir Path tmp;

  @Test
  void mergingAndLayoutDoNotChangeTheModel() throws Exception {
    TestData d = TestData.random(3000, 8, 37, 7);
    int n = d.features.n;
    int dim = d.features.dim;
    ModelConfig cfg = new ModelConfig("sage", dim, 32, d.classes, 2, 0.5f, "relu", "none");
    float[] memory = train(d, d.features, cfg, null, tmp.resolve("memory"));
    int[] position = new int[n];
    for (int v = 0; v < n; v++) {
      position[v] = v;
    }
    SplittableRandom rnd = new SplittableRandom(3);
    for (int i = n - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = position[i];
      position[i] = position[j];
      position[j] = t;
    }
    RowLayout moved = RowLayout.of(position);
    FeatureParams params = FeatureParams.plain(StoreLayout.ENCODING_F32, dim);
    Path ids = write(d, RowLayout.IDENTITY, tmp.resolve("ids.feat"));
    Path shuffled = write(d, moved, tmp.resolve("moved.feat"));
    ReadCoalescing[] reads = {ReadCoalescing.ROW_AT_A_TIME, ReadCoalescing.DIRECT};
    int runs = 0;
    for (ReadCoalescing c : reads) {
      for (RowLayout layout : new RowLayout[] {RowLayout.IDENTITY, moved}) {
        Path file = layout.isIdentity() ? ids : shuffled;
        try (RowCache cache =
            new RowCache(
                FeatureFiles.of(new Path[] {file}, new long[] {0, n}, params, 3, true, c, layout),
                CachePolicy.BELADY,
                n / 10L * params.rowBytes())) {
          float[] got = train(d, d.features, cfg, cache, tmp.resolve("run" + runs++));
          assertThat(got).as("%s, layout at ids %b", c, layout.isIdentity()).isEqualTo(memory);
          assertThat(cache.misses()).isPositive();
          assertThat(cache.hits()).isPositive();
          if (c == ReadCoalescing.ROW_AT_A_TIME) {
            assertThat(cache.files().reads()).isGreaterThanOrEqualTo(cache.misses() / 2);
          }
        }
      }
    }
  }

  /** The rows of {@code d} as f32, in {@code layout}'s order, after a store file's header. */
  private static Path write(TestData d, RowLayout layout, Path file) throws Exception {
    int n = d.features.n;
    int dim = d.features.dim;
    int[] rowAt = layout.rowsByPosition(n);
    ByteBuffer b =
        ByteBuffer.allocate(StoreLayout.HEADER_BYTES + n * dim * 4).order(ByteOrder.LITTLE_ENDIAN);
    b.position(StoreLayout.HEADER_BYTES);
    for (int p = 0; p < n; p++) {
      b.asFloatBuffer().put(d.features.rows, rowAt[p] * dim, dim);
      b.position(b.position() + dim * 4);
    }
    return Files.write(file, b.array());
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
