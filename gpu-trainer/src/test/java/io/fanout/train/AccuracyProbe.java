package io.fanout.train;

import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Hyperparameter probe, not part of CI: {@code -Dfanout.probe=cora,citeseer -Dprobe.hidden=256
 * ...}.
 */
@EnabledIfSystemProperty(named = "fanout.probe", matches = ".+")
@org.junit.jupiter.api.Timeout(value = 3, unit = java.util.concurrent.TimeUnit.HOURS)
class AccuracyProbe {
  static String p(String k, String d) {
    return System.getProperty("probe." + k, d);
  }

  /** Trains on {@code d} and returns {full-neighbor test acc, sampled test acc, val acc}. */
  static double[] run(TestData d, ModelConfig cfg, TrainOptions opts, int[] fanouts, int batch)
      throws Exception {
    GnnModel m = new GnnModel(cfg, new CpuBackend());
    Trainer t = new Trainer(m, opts, GradientReducer.LOCAL);
    int[] train = d.vertices.ofSplit(StoreLayout.SPLIT_TRAIN);
    SampledEpochs epochs =
        new SampledEpochs(
            d.csr,
            d.vertices,
            d.features,
            train,
            fanouts,
            batch,
            opts.seed(),
            true,
            cfg.featureNorm(),
            2);
    Path dir = Files.createTempDirectory("probe");
    EpochData val = null;
    if (Boolean.parseBoolean(p("val", "false"))) {
      int[] f20 = new int[cfg.layers()];
      java.util.Arrays.fill(f20, 20);
      val =
          new SampledEpochs(
              d.csr,
              d.vertices,
              d.features,
              d.vertices.ofSplit(StoreLayout.SPLIT_VAL),
              f20,
              1024,
              7,
              false,
              cfg.featureNorm(),
              2);
    }
    t.fit(epochs, val, dir, false, java.util.Map.of(), null, 0);
    if (val != null) {
      float[] best = Checkpoint.readForInference(dir).params();
      m.loadParams(best);
    }
    float[] logits = FullGraphInference.logits(m, d.csr, d.features, 4096);
    double full =
        Evaluation.accuracy(logits, d.classes, d.vertices, StoreLayout.SPLIT_TEST).value();
    double valAcc =
        Evaluation.accuracy(logits, d.classes, d.vertices, StoreLayout.SPLIT_VAL).value();
    int[] test = d.vertices.ofSplit(StoreLayout.SPLIT_TEST);
    int[] f20 = new int[cfg.layers()];
    java.util.Arrays.fill(f20, 20);
    SampledEpochs ts =
        new SampledEpochs(
            d.csr, d.vertices, d.features, test, f20, 1024, 99, false, cfg.featureNorm(), 2);
    double sampled;
    try (BatchStream s = ts.open(0)) {
      sampled = Evaluation.accuracy(m, s).value();
    }
    return new double[] {full, sampled, valAcc};
  }

  @Test
  void probe() throws Exception {
    for (String name : System.getProperty("fanout.probe").split(",")) {
      long t0 = System.nanoTime();
      TestData d = TestData.load(name);
      System.out.printf("%s loaded in %.1fs%n", name, (System.nanoTime() - t0) / 1e9);
      int layers = Integer.parseInt(p("layers", "2"));
      String[] fs = p("fanouts", "15,10,5").split(",");
      int[] fanouts = new int[layers];
      for (int i = 0; i < layers; i++) {
        fanouts[i] = Integer.parseInt(fs[i].trim());
      }
      double sf = 0;
      double ss = 0;
      int seeds = Integer.parseInt(p("seeds", "1"));
      for (int s = 0; s < seeds; s++) {
        ModelConfig cfg =
            new ModelConfig(
                    p("model", "sage"),
                    d.features.dim(),
                    Integer.parseInt(p("hidden", "256")),
                    d.classes,
                    layers,
                    Float.parseFloat(p("dropout", "0.5")),
                    p("act", "relu"),
                    p("norm", "l2"))
                .withAttention(
                    // as the trainer does: the residual's auto resolved from the training seeds
                    new io.fanout.nn.AttentionConfig(
                            Integer.parseInt(p("heads", "8")),
                            Float.parseFloat(p("slope", "0.2")),
                            Float.parseFloat(p("attndrop", "0.5")),
                            Integer.parseInt(p("outheads", "8")),
                            io.fanout.nn.GatResidual.parse(p("residual", "auto")))
                        .resolve(d.vertices.ofSplit(StoreLayout.SPLIT_TRAIN).length, d.classes));
        TrainOptions opts =
            new TrainOptions(
                Integer.parseInt(p("epochs", "50")),
                Float.parseFloat(p("lr", "0.01")),
                Float.parseFloat(p("wd", "5e-4")),
                LrSchedule.parse(p("schedule", "constant")),
                s);
        t0 = System.nanoTime();
        double[] r = run(d, cfg, opts, fanouts, Integer.parseInt(p("batch", "512")));
        sf += r[0];
        ss += r[1];
        System.out.printf(
            Locale.ROOT,
            "%s seed %d full %.4f sampled %.4f val %.4f (%.1fs)%n",
            name,
            s,
            r[0],
            r[1],
            r[2],
            (System.nanoTime() - t0) / 1e9);
      }
      System.out.printf(
          Locale.ROOT, "%s MEAN full %.4f sampled %.4f%n", name, sf / seeds, ss / seeds);
    }
  }
}
