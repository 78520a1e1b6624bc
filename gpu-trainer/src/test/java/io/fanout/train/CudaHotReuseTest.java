package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.tensor.cuda.CudaBackend;
import io.fanout.tensor.cuda.GpuTests;
import io.fanout.tensor.cuda.KernelFeatureRows;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Hot-embedding reuse on the CUDA backend, with refreshes overlapped on a CPU backend of the
 * worker's own and inline on the device (auto's choice there): each trains, two runs give the same
 * bits, every step reuses within the staleness bound, and the device pool is clean afterwards.
 * Skipped, with the reason printed, where no CUDA device exists.
 */
@Tag("gpu")
class CudaHotReuseTest {
  @ParameterizedTest(name = "{0}")
  @EnumSource(ReuseRefresh.class)
  void reuseTrainsDeterministicallyAndFreesTheDevice(ReuseRefresh refresh) throws Exception {
    GpuTests.assumeDevice();
    TestData d = TestData.random(3000, 8, 48, 7);
    ModelConfig cfg = new ModelConfig("sage", 48, 32, d.classes, 2, 0.5f, "relu", "none");
    HotReuse reuse = new HotReuse(0.1, 3, HotBy.FREQUENCY, refresh);
    Run a = train(d, cfg, reuse);
    Run b = train(d, cfg, reuse);
    assertThat(b.params).containsExactly(a.params);
    Run plain = train(d, cfg, new HotReuse(0, 3, HotBy.FREQUENCY, refresh));
    assertThat(plain.stats).isEmpty();
    assertThat(a.params).isNotEqualTo(plain.params);
    assertThat(a.stats)
        .containsEntry(
            "reuse_refresh", (refresh == ReuseRefresh.AUTO ? ReuseRefresh.INLINE : refresh).id())
        .containsEntry("max_embedding_age_steps", 3);
    assertThat((double) a.stats.get("feature_rows_avoided_fraction")).isPositive();
  }

  /**
   * Zero-copy feature access with reuse: the loader prunes each batch without gathering it and the
   * kernel reads only the pruned block's rows (and, once, the hot set's) from pinned memory; the
   * model is the one the host gather trains with the same reuse, bit for bit.
   */
  @Test
  void zeroCopyWithReuseTrainsTheModelOfTheGatherWithReuse() throws Exception {
    GpuTests.assumeDevice();
    TestData d = TestData.random(3000, 8, 48, 7);
    ModelConfig cfg = new ModelConfig("sage", 48, 32, d.classes, 2, 0.5f, "relu", "none");
    HotReuse reuse = new HotReuse(0.1, 3, HotBy.FREQUENCY, ReuseRefresh.INLINE);
    Run gather = train(d, cfg, reuse, true, false);
    Run zeroCopy = train(d, cfg, reuse, true, true);
    assertThat(zeroCopy.params).containsExactly(gather.params);
    assertThat(zeroCopy.stats.get("feature_rows_avoided"))
        .isEqualTo(gather.stats.get("feature_rows_avoided"));
    assertThat((double) zeroCopy.stats.get("feature_rows_avoided_fraction")).isPositive();
  }

  /**
   * The deferred backward on the device: a step's gradient plus the backward of what it left in the
   * sink is the gradient of the batch computed in full (as on the CPU), and training with it, its
   * backward inline or on the overlapped CPU worker, gives the same bits twice, another model than
   * without it, and frees the device.
   */
  /**
   * {@link HotReuseTest#reusedInputsGiveTheFullBatchsLogitsAndGradient} with the cache, the scatter
   * and layer 0's product on the device; no device memory left behind.
   */
  @Test
  void reusedInputsOnTheDevice() {
    GpuTests.assumeDevice();
    CudaBackend be = new CudaBackend(0);
    try {
      HotReuseTest.checkReusedInputs(be, 1e-5f, 1e-4f);
      be.pool().checkNoLeaks();
    } finally {
      be.close();
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(
      value = ReuseRefresh.class,
      names = {"OVERLAPPED", "INLINE"})
  void deferredBackwardOnTheDevice(ReuseRefresh refresh) throws Exception {
    GpuTests.assumeDevice();
    CudaBackend be = new CudaBackend(0);
    try {
      HotReuseTest.checkDeferredShare(be, 1e-5f, 1e-4f);
      be.pool().checkNoLeaks();
    } finally {
      be.close();
    }
    TestData d = TestData.random(3000, 8, 48, 7);
    ModelConfig cfg = new ModelConfig("sage", 48, 32, d.classes, 2, 0.5f, "relu", "none");
    HotReuse reuse = new HotReuse(0.1, 3, HotBy.FREQUENCY, refresh, ReuseBackward.DEFERRED);
    Run a = train(d, cfg, reuse);
    Run b = train(d, cfg, reuse);
    assertThat(b.params).containsExactly(a.params);
    Run none = train(d, cfg, new HotReuse(0.1, 3, HotBy.FREQUENCY, refresh));
    assertThat(a.params).isNotEqualTo(none.params);
    assertThat(a.stats).containsEntry("max_embedding_age_steps", 3);
  }

  private record Run(float[] params, Map<String, Object> stats) {}

  private static Run train(TestData d, ModelConfig cfg, HotReuse reuse) {
    return train(d, cfg, reuse, false, false);
  }

  /**
   * Trains 3 epochs; {@code denseInput} turns the sparse input path off (zero-copy's input is
   * always dense), {@code zeroCopy} reads the features from a pinned copy instead of gathering.
   */
  private static Run train(
      TestData d, ModelConfig cfg, HotReuse reuse, boolean denseInput, boolean zeroCopy) {
    CudaBackend be = new CudaBackend(0);
    try {
      GnnModel model = new GnnModel(cfg, be);
      if (denseInput) {
        model.allowSparseInput(false);
      }
      model.init(3);
      TrainOptions opts = new TrainOptions(3, 0.01f, 5e-4f, LrSchedule.CONSTANT, 0);

      Run run;
      try (KernelFeatureRows rows =
              zeroCopy
                  ? KernelFeatureRows.pinnedCopy(be, d.features.rows, d.features.n, cfg.inDim())
                  : null;
          Trainer t = new Trainer(model, opts, GradientReducer.LOCAL)) {
        SampledEpochs data =
            d.trainEpochs(d.features, new int[] {10, 5}, 256, 11, "none", 2).gather(!zeroCopy);
        t.readFeaturesFrom(rows);
        t.reuseHot(reuse, 3000, null);
        t.prepareReuse(data);
        for (int epoch = 0; epoch < 3; epoch++) {
          try (BatchStream st = t.open(data, epoch)) {
            t.trainEpoch(epoch, -1, st, 0.01f, TrainProgress.NONE);
          }
        }
        run = new Run(model.params(), t.reuseStats());
        t.endReuse();
      }
      model.close();
      be.pool().checkNoLeaks();
      return run;
    } finally {
      be.close();
    }
  }
}
