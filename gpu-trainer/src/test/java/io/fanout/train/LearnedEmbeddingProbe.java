package io.fanout.train;

import io.fanout.graph.FeatureTable;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import java.nio.file.Files;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Measurement, not part of CI: the bundled datasets trained with a learned embedding per vertex in
 * place of their features ({@code --learned-embeddings all}) against the same model on the
 * features, full-neighbor test accuracy over seeds: {@code -Dfanout.probe.learned=cora
 * -Dprobe.seeds=3 -Dprobe.epochs=100}.
 */
@EnabledIfSystemProperty(named = "fanout.probe.learned", matches = ".+")
class LearnedEmbeddingProbe {
  static String p(String k, String d) {
    return System.getProperty("probe." + k, d);
  }

  static double run(TestData d, boolean learned, long seed) throws Exception {
    int hidden = Integer.parseInt(p("hidden", "64"));
    ModelConfig cfg =
        new ModelConfig(
            "sage",
            learned ? hidden : d.features.dim(),
            hidden,
            d.classes,
            2,
            Float.parseFloat(p("dropout", "0.5")),
            "relu",
            learned ? "none" : "l2");
    if (learned) {
      cfg = cfg.withEmbeddingRows(d.csr.numVertices());
    }
    TrainOptions opts =
        new TrainOptions(
            Integer.parseInt(p("epochs", "100")),
            Float.parseFloat(p("lr", "0.01")),
            5e-4f,
            LrSchedule.CONSTANT,
            seed);
    try (GnnModel m = new GnnModel(cfg, new CpuBackend())) {
      Trainer t = new Trainer(m, opts, GradientReducer.LOCAL);
      FeatureTable rows = learned ? LearnedEmbeddingTrainingTest.width(d, hidden) : d.features;
      SampledEpochs epochs =
          new SampledEpochs(
                  d.csr,
                  d.vertices,
                  rows,
                  d.vertices.ofSplit(StoreLayout.SPLIT_TRAIN),
                  new int[] {10, 10},
                  64,
                  seed,
                  true,
                  cfg.featureNorm(),
                  2)
              .gather(!learned);
      t.fit(epochs, null, Files.createTempDirectory("probe"), false, Map.of(), null, 0);
      FeatureTable input = learned ? ModelInputRows.of(m.embeddings()) : d.features;
      float[] logits = FullGraphInference.logits(m, d.csr, input, 4096);
      return Evaluation.accuracy(logits, d.classes, d.vertices, StoreLayout.SPLIT_TEST).value();
    }
  }

  @Test
  void probe() throws Exception {
    int seeds = Integer.parseInt(p("seeds", "3"));
    for (String name : System.getProperty("fanout.probe.learned").split(",")) {
      TestData d = TestData.load(name);
      for (boolean learned : new boolean[] {false, true}) {
        double sum = 0;
        StringBuilder each = new StringBuilder();
        for (long s = 0; s < seeds; s++) {
          double a = run(d, learned, s);
          sum += a;
          each.append(String.format(Locale.ROOT, " %.4f", a));
        }
        System.out.printf(
            Locale.ROOT,
            "probe %s %s: mean test accuracy %.4f over %d seeds (%s)%n",
            name,
            learned ? "learned-embeddings all" : "features",
            sum / seeds,
            seeds,
            each.toString().trim());
      }
    }
  }
}
