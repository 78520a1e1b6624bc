package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.nn.GnnModel;
import io.fanout.nn.ModelConfig;
import io.fanout.tensor.Backend;
import io.fanout.tensor.BackendProvider;
import io.fanout.tensor.cuda.CudaBackend;
import java.nio.file.Path;
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
    Trainer t = CoraTraining.fit(d, model, tmp);
    double acc = CoraTraining.testAccuracy(d, CoraTraining.logits(d, model));
    System.out.println("cora test accuracy on " + be.name() + ": " + acc);
    assertThat(acc).isGreaterThanOrEqualTo(0.79);
    t.close();
    model.close();
    ((CudaBackend) be).pool().checkNoLeaks();
    ((CudaBackend) be).close();
  }
}
