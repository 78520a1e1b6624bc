package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.CpuBackend;
import io.fanout.train.EarlyStop;
import io.fanout.train.EarlyStopChecks;
import io.fanout.train.LinkMetrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TypedLinkTrainer} on {@link LinkCommunityGraph}: every encoder learns to rank the held-out
 * {@code buys} edges above their negatives (AUC well above a random model's 0.5), the same seed
 * gives bit-identical parameters, and a checkpointed run resumes to the same parameters.
 */
class TypedLinkTrainerTest {
  private static final LinkCommunityGraph G = new LinkCommunityGraph(80, 96, 12, 3);
  @TempDir Path tmp;

  private static TypedLinkTrainer trainer(TypedModelKind kind, int epochs, CpuBackend be) {
    return trainer(kind, epochs, be, DecoderKind.DOT);
  }

  private static TypedLinkTrainer trainer(
      TypedModelKind kind, int epochs, CpuBackend be, DecoderKind decoder) {
    TypedLinkTask task = TypedLinkTask.of(G.graph.schema(), "buys", decoder);
    TypedModelConfig cfg =
        TypedModelConfig.ofLink(
            G.graph.schema(), task.relation(), kind, 16, 2, 0f, 0, EmbeddingMode.AUTO);
    TypedModel m = new TypedModel(cfg, be, decoder);
    m.init(7);
    return new TypedLinkTrainer(
        m,
        G.graph,
        task,
        G.linkEpochs(7),
        LinkCommunityGraph.FULL,
        new TypedTrainOptions(epochs, 64, 0.01f, 0f, 7));
  }

  @Test
  void everyEncoderLearnsTheTypedLinks() {
    for (TypedModelKind kind : TypedModelKind.values()) {
      try (CpuBackend be = new CpuBackend();
          TypedLinkTrainer t = trainer(kind, 40, be)) {
        double before = t.evaluate(G.val).auc();
        TypedLinkTrainer.FitResult r = t.fit(null, G.val, null);
        LinkMetrics after = r.lastVal();
        assertThat(after.auc()).as("%s val AUC (untrained %s)", kind, before).isGreaterThan(0.85);
        assertThat(after.positives()).isEqualTo(G.val.positives());
        t.model().close();
      }
    }
  }

  @Test
  void theMlpDecoderLearnsTheTypedLinks() {
    try (CpuBackend be = new CpuBackend();
        TypedLinkTrainer t = trainer(TypedModelKind.RGCN, 40, be, DecoderKind.MLP)) {
      double before = t.evaluate(G.val).auc();
      LinkMetrics after = t.fit(null, G.val, null).lastVal();
      assertThat(after.auc()).as("mlp val AUC (untrained %s)", before).isGreaterThan(0.85);
      assertThat(t.model().decoder()).isNotNull();
      t.model().close();
    }
  }

  @Test
  void theSameSeedGivesTheSameModelResumedOrNot() throws Exception {
    float[] once;
    try (CpuBackend be = new CpuBackend();
        TypedLinkTrainer t = trainer(TypedModelKind.RGCN, 4, be)) {
      t.fit(null, G.val, null);
      once = t.model().params();
      t.model().close();
    }
    Path dir = tmp.resolve("model");
    Files.createDirectories(dir);
    try (CpuBackend be = new CpuBackend();
        TypedLinkTrainer t = trainer(TypedModelKind.RGCN, 2, be)) {
      t.fit(dir, G.val, null);
      t.model().close();
    }
    try (CpuBackend be = new CpuBackend();
        TypedLinkTrainer t = trainer(TypedModelKind.RGCN, 4, be)) {
      TypedLinkTrainer.FitResult r = t.fit(dir, G.val, null);
      assertThat(r.epochsRun()).isEqualTo(2);
      assertThat(t.model().params()).isEqualTo(once);
      t.model().close();
    }
    assertThat(Files.readAllLines(dir.resolve("metrics.jsonl"))).hasSize(4);
    assertThat(TypedCheckpoint.read(dir, "checkpoint.bin").checkpoint().meta())
        .containsEntry(TypedLinkTask.RELATION_KEY, "buys");
  }

  @Test
  void earlyStopEndsOnTheValidationAucAndIsRefusedWithoutValidation() throws Exception {
    Path dir = tmp.resolve("early");
    Files.createDirectories(dir);
    int epochs = 30;
    TypedLinkTrainer.FitResult r;
    try (CpuBackend be = new CpuBackend();
        TypedLinkTrainer t = trainer(TypedModelKind.RGCN, epochs, be)) {
      r = t.stopEarly(new EarlyStop(1)).fit(dir, G.val, null);
      t.model().close();
    }
    List<JsonNode> lines = EarlyStopChecks.read(dir);
    int[] bs = EarlyStopChecks.bestAndStop(lines, "val_auc", 1);
    assertThat(bs[1]).as("the run stops before its last epoch").isBetween(1, epochs - 2);
    assertThat(lines).hasSize(bs[1] + 1);
    assertThat(r.epochsRun()).isEqualTo(bs[1] + 1);
    assertThat(lines.get(bs[1]).get("best_epoch").asInt()).isEqualTo(bs[0] + 1);
    assertThat(TypedCheckpoint.read(dir, "best.bin").checkpoint().epochs()).isEqualTo(bs[0] + 1);
    try (CpuBackend be = new CpuBackend();
        TypedLinkTrainer t = trainer(TypedModelKind.RGCN, epochs, be)) {
      assertThat(t.stopEarly(new EarlyStop(1)).fit(dir, G.val, null).epochsRun())
          .as("a resumed run that had stopped")
          .isZero();
      assertThatThrownBy(() -> t.fit(tmp.resolve("none"), null, null))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("--early-stop 1")
          .hasMessageContaining("--val-shards");
      t.model().close();
    }
    assertThat(tmp.resolve("none")).doesNotExist();
  }
}
