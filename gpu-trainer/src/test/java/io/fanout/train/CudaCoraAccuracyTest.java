package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.nn.GnnModel;
import io.fanout.nn.ModelConfig;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.Backend;
import io.fanout.tensor.BackendProvider;
import io.fanout.tensor.cuda.CudaBackend;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cora trained end to end on the CUDA backend (the backend {@code --backend cuda} selects) with the
 * default hyperparameters reaches the CPU's accuracy floor, and leaks no device memory. Skipped,
 * with the reason printed, where no CUDA device exists.
 */
@Tag("gpu")
class CudaCoraAccuracyTest {
  @TempDir Path tmp;

  @Test
  void defaultsReachTheAccuracyFloorOnTheGpu() throws Exception {
    BackendProvider cuda = null;
    for (BackendProvider p : ServiceLoader.load(BackendProvider.class)) {
      if (p.name().equals("cuda")) {
        cuda = p;
      }
    }
    Assumptions.assumeTrue(cuda != null, "skipping GPU test: no cuda provider registered");
    String why = cuda.unavailableReason();
    if (!why.isEmpty()) {
      System.out.println("skipping GPU test: " + why);
    }
    Assumptions.assumeTrue(why.isEmpty(), () -> "skipping GPU test: " + why);
    Backend be = cuda.create();
    System.out.println("backend: " + be.name());
    TestData d = TestData.load("cora");
    ModelConfig cfg =
        new ModelConfig(
            Defaults.MODEL.id(),
            d.features.dim(),
            Defaults.HIDDEN,
            d.classes,
            Defaults.FANOUTS.length,
            (float) Defaults.DROPOUT,
            Defaults.ACTIVATION.id(),
            Defaults.FEATURE_NORM.id());
    GnnModel model = new GnnModel(cfg, be);
    TrainOptions opts =
        new TrainOptions(
            Defaults.EPOCHS,
            (float) Defaults.LR,
            (float) Defaults.WEIGHT_DECAY,
            Defaults.SCHEDULE,
            0);
    Trainer t = new Trainer(model, opts, GradientReducer.LOCAL);
    SampledEpochs train =
        new SampledEpochs(
            d.csr,
            d.vertices,
            d.features,
            d.vertices.ofSplit(StoreLayout.SPLIT_TRAIN),
            Defaults.FANOUTS,
            Defaults.BATCH_SIZE,
            0,
            true,
            cfg.featureNorm(),
            2);
    List<EpochStats> stats = t.fit(train, null, tmp, false, Map.of(), null, 0);
    assertThat(stats.get(stats.size() - 1).loss()).isLessThan(stats.get(0).loss() * 0.5);
    float[] logits = FullGraphInference.logits(model, d.csr, d.features, 1000);
    double acc = Evaluation.accuracy(logits, d.classes, d.vertices, StoreLayout.SPLIT_TEST).value();
    System.out.println("cora test accuracy on " + be.name() + ": " + acc);
    assertThat(acc).isGreaterThanOrEqualTo(0.79);
    t.close();
    model.close();
    ((CudaBackend) be).pool().checkNoLeaks();
    ((CudaBackend) be).close();
  }
}
