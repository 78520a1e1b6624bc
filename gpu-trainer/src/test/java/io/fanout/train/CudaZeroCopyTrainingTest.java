package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.cuda.CudaBackend;
import io.fanout.tensor.cuda.CudaBackendProvider;
import io.fanout.tensor.cuda.ZeroCopyFeatures;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On the CUDA backend, training with zero-copy feature access (the loader only samples; a kernel
 * reads each batch's rows from pinned host memory) gives the model that the CPU gather and upload
 * gives, bit for bit, and both release all device memory. Skipped, with the reason printed, where
 * no CUDA device exists.
 */
@Tag("gpu")
class CudaZeroCopyTrainingTest {
  @TempDir Path tmp;

  @Test
  void zeroCopyTrainsTheModelThatGatherTrains() throws Exception {
    String why = new CudaBackendProvider().unavailableReason();
    if (!why.isEmpty()) {
      System.out.println("skipping GPU test: " + why);
    }
    Assumptions.assumeTrue(why.isEmpty(), () -> "skipping GPU test: " + why);
    TestData d = TestData.random(3000, 8, 48, 7);
    ModelConfig cfg = new ModelConfig("sage", 48, 32, d.classes, 2, 0.5f, "relu", "none");
    float[] gather = train(d, cfg, false, tmp.resolve("gather"));
    float[] zeroCopy = train(d, cfg, true, tmp.resolve("zero-copy"));
    assertThat(zeroCopy).isEqualTo(gather);
    GnnModel cpu = new GnnModel(cfg, new CpuBackend());
    cpu.init(3);
    assertThat(gather).isNotEqualTo(cpu.params()); // it trained
  }

  private static float[] train(TestData d, ModelConfig cfg, boolean zeroCopy, Path dir)
      throws Exception {
    CudaBackend be = new CudaBackend(0);
    try {
      GnnModel model = new GnnModel(cfg, be);
      model.allowSparseInput(false);
      model.init(3);
      TrainOptions opts = new TrainOptions(3, 0.01f, 5e-4f, LrSchedule.CONSTANT, 0);
      SampledEpochs data =
          new SampledEpochs(
                  d.csr,
                  d.vertices,
                  d.features,
                  d.vertices.ofSplit(StoreLayout.SPLIT_TRAIN),
                  new int[] {10, 5},
                  256,
                  11,
                  true,
                  "none",
                  2)
              .gather(!zeroCopy);
      float[] params;
      try (ZeroCopyFeatures rows =
              zeroCopy
                  ? ZeroCopyFeatures.pinnedCopy(be, d.features.rows, d.features.n, cfg.inDim())
                  : null;
          Trainer t = new Trainer(model, opts, GradientReducer.LOCAL)) {
        if (rows != null) {
          t.readFeaturesFrom(rows);
        }
        t.fit(data, null, dir, false, Map.of(), null, 0);
        params = model.params();
      }
      model.close();
      be.pool().checkNoLeaks();
      return params;
    } finally {
      be.close();
    }
  }
}
