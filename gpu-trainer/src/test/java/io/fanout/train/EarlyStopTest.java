package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fanout.dist.MeshReplicas;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.GnnModel;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train --early-stop} on the one-type trainer, on {@link TrainerTest}'s graph: where a run
 * stops is derived from its own {@code metrics.jsonl}, and an interrupted run resumes to the same
 * stop and the same files.
 */
class EarlyStopTest {
  private static final int EPOCHS = 12;
  private static final int PATIENCE = 2;
  private static final long SEED = 4;

  @TempDir Path tmp;

  @BeforeAll
  static void load() {
    TrainerTest.load();
  }

  private static SampledEpochs val() {
    TestData g = TrainerTest.graph;
    return new SampledEpochs(
        g.csr,
        g.vertices,
        g.features,
        g.vertices.ofSplit(StoreLayout.SPLIT_VAL),
        new int[] {5, 3},
        64,
        SEED,
        false,
        FeatureNormKind.L2,
        1);
  }

  private static Trainer trainer() {
    return TrainerTest.trainer("sage", EPOCHS, SEED).stopEarly(new EarlyStop(PATIENCE));
  }

  private static List<JsonNode> metrics(Path dir) {
    return EarlyStopChecks.read(dir);
  }

  private static int[] bestAndStop(List<JsonNode> lines) {
    return EarlyStopChecks.bestAndStop(lines, "val_accuracy", PATIENCE);
  }

  @Test
  void theRunStopsAfterPatienceEpochsWithoutABetterValidationAccuracy() throws IOException {
    Path dir = tmp.resolve("early");
    Trainer t = trainer();
    List<float[]> afterEpoch = new ArrayList<>();
    List<String> said = new ArrayList<>();
    List<EpochStats> ran =
        t.fit(
            TrainerTest.data(SEED, 1),
            val(),
            dir,
            false,
            Map.of(),
            new TrainProgress() {
              @Override
              public void epochEnded(EpochStats stats, int epochs, Accuracy validation) {
                afterEpoch.add(t.model().params().clone());
              }

              @Override
              public void stoppedEarly(int epoch, int bestEpoch, int patience) {
                said.add(epoch + " " + bestEpoch + " " + patience);
              }
            });
    List<JsonNode> lines = metrics(dir);
    int[] bs = bestAndStop(lines);
    int best = bs[0];
    int stop = bs[1];
    assertThat(stop).as("the run stops before its last epoch").isBetween(PATIENCE, EPOCHS - 2);
    assertThat(lines).as("no epoch after the stop").hasSize(stop + 1);
    assertThat(ran).hasSize(stop + 1);
    assertThat(said).containsExactly(stop + " " + best + " " + PATIENCE);
    for (int e = 0; e < stop; e++) {
      assertThat(lines.get(e).has("stopped_early")).isFalse();
    }
    assertThat(lines.get(stop).get("stopped_early").asBoolean()).isTrue();
    assertThat(lines.get(stop).get("best_epoch").asInt()).isEqualTo(best);
    assertThat(Checkpoint.read(dir).epochs()).isEqualTo(stop + 1);
    assertThat(Checkpoint.read(dir).params()).isEqualTo(afterEpoch.get(stop));
    assertThat(Checkpoint.read(dir, Checkpoint.BEST).epochs()).isEqualTo(best + 1);
    assertThat(Checkpoint.read(dir, Checkpoint.BEST).params()).isEqualTo(afterEpoch.get(best));

    // Resuming the stopped run trains nothing and leaves every file as it was.
    Map<String, byte[]> before = EarlyStopChecks.files(dir);
    java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
    assertThat(
            trainer()
                .fit(
                    TrainerTest.data(SEED, 1),
                    val(),
                    dir,
                    true,
                    Map.of(),
                    new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8),
                    0))
        .isEmpty();
    assertThat(printed.toString(java.nio.charset.StandardCharsets.UTF_8))
        .contains(
            "training stopped early at epoch "
                + (stop + 1)
                + " (best epoch "
                + (best + 1)
                + "): "
                + PATIENCE
                + " epochs without a better val-acc");
    Map<String, byte[]> after = EarlyStopChecks.files(dir);
    assertThat(after).containsOnlyKeys(before.keySet());
    before.forEach((name, bytes) -> assertThat(after.get(name)).as(name).isEqualTo(bytes));

    // Interrupted one epoch before the stop, with patience - 1 epochs already without a better
    // accuracy: the resumed run counts on from the checkpoint and stops where this one did.
    Path cut = tmp.resolve("cut");
    SampledEpochs d = TrainerTest.data(SEED, 1);
    EpochData crashAtStop =
        e -> {
          if (e == stop) {
            throw new IllegalStateException("simulated crash");
          }
          return d.open(e);
        };
    assertThatThrownBy(() -> trainer().fit(crashAtStop, val(), cut, false, Map.of(), null, 0))
        .hasMessageContaining("simulated crash");
    assertThat(Checkpoint.read(cut).epochs()).isEqualTo(stop);
    assertThat(trainer().fit(d, val(), cut, true, Map.of(), null, 0)).hasSize(1);
    for (String f : List.of(Checkpoint.FILE, Checkpoint.BEST)) {
      assertThat(Files.readAllBytes(cut.resolve(f))).as(f).isEqualTo(before.get(f));
    }
    List<JsonNode> resumed = metrics(cut);
    assertThat(resumed).hasSize(lines.size());
    for (int e = 0; e < lines.size(); e++) {
      for (String k : List.of("epoch", "loss", "val_accuracy", "stopped_early", "best_epoch")) {
        assertThat(resumed.get(e).get(k)).as(e + " " + k).isEqualTo(lines.get(e).get(k));
      }
    }
  }

  @Test
  void twoReplicasStopAfterTheEpochRankZeroDecides() throws Exception {
    Path dir = tmp.resolve("two");
    int workers = 2;
    List<Map.Entry<Trainer, Integer>> ts =
        MeshReplicas.run(
            workers,
            SEED,
            120,
            (mesh, rank) -> {
              Trainer t =
                  new Trainer(
                          new GnnModel(TrainerTest.cfg("sage"), new CpuBackend()),
                          TrainerTest.opts(EPOCHS, SEED),
                          mesh)
                      .stopEarly(new EarlyStop(PATIENCE));
              List<EpochStats> ran =
                  t.fit(
                      new ShardedEpochData(TrainerTest.data(SEED, 1), rank, workers),
                      rank == 0 ? val() : null, // only rank 0 validates
                      dir,
                      false,
                      Map.of(),
                      null,
                      0);
              return Map.entry(t, ran.size());
            });
    int[] bs = bestAndStop(metrics(dir));
    assertThat(bs[1]).as("the run stops before its last epoch").isBetween(0, EPOCHS - 2);
    assertThat(metrics(dir)).hasSize(bs[1] + 1);
    assertThat(ts).extracting(Map.Entry::getValue).containsExactly(bs[1] + 1, bs[1] + 1);
    float[] params = ts.get(0).getKey().model().params();
    assertThat(ts.get(1).getKey().model().params()).isEqualTo(params);
    assertThat(Checkpoint.read(dir).params()).isEqualTo(params);
  }

  @Test
  void earlyStoppingWithoutValidationIsRefusedBeforeAnythingIsWritten() {
    Path dir = tmp.resolve("unvalidated");
    assertThatThrownBy(
            () -> trainer().fit(TrainerTest.data(SEED, 1), null, dir, false, Map.of(), null, 0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--early-stop " + PATIENCE)
        .hasMessageContaining("--val-shards");
    assertThat(dir).doesNotExist();
  }

  @Test
  void patienceCountsFromTheBestEpochAndAFinishedRunIsOneThatRanOrStopped() {
    EarlyStop two = new EarlyStop(2);
    assertThat(two.stopsAfter(3, 1)).isTrue();
    assertThat(two.stopsAfter(3, 2)).isFalse();
    assertThat(two.stopsAfter(2, -1)).as("no best yet counts from the start").isTrue();
    assertThat(EarlyStop.OFF.stopsAfter(50, 1)).isFalse();
    assertThat(two.finished(5, Map.of(EarlyStop.BEST_EPOCHS_KEY, "3"), 10)).isTrue();
    assertThat(two.finished(5, Map.of(EarlyStop.BEST_EPOCHS_KEY, "4"), 10)).isFalse();
    assertThat(two.finished(5, Map.of("best.epoch", "3"), 10)).as("typed").isTrue();
    assertThat(two.finished(5, Map.of(), 10)).as("no best recorded: not stopped").isFalse();
    assertThat(EarlyStop.OFF.finished(10, Map.of(), 10)).isTrue();
    assertThatThrownBy(() -> new EarlyStop(-1)).isInstanceOf(IllegalArgumentException.class);
  }
}
