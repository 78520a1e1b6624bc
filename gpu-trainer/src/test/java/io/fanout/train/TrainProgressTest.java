package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Trainer#fit} reports to its listener, to registered ones, and as the old lines. */
class TrainProgressTest {
  @TempDir Path tmp;

  @BeforeAll
  static void load() {
    TrainerTest.load();
  }

  /** Writes every callback as a short line. */
  static final class Recorder implements TrainProgress {
    final List<String> events = new ArrayList<>();

    @Override
    public void started(int first, int epochs) {
      events.add("started " + first + "/" + epochs);
    }

    @Override
    public void epochStarted(int epoch, int epochs, int batches) {
      events.add("epoch " + epoch + "/" + epochs + " of " + batches);
    }

    @Override
    public void batchDone(Batch b) {
      assertThat(b.meanLoss()).isPositive();
      assertThat(b.examples()).isPositive();
      assertThat(b.seconds()).isPositive();
      events.add("batch " + b.epoch() + ":" + b.batch() + "/" + b.batches());
    }

    @Override
    public void epochEnded(EpochStats stats, int epochs, Accuracy validation) {
      events.add("end " + stats.epoch() + " after " + stats.batches());
    }

    @Override
    public void finished() {
      events.add("finished");
    }
  }

  @Test
  void fitReportsEveryStepToItsListenerAndTheRegisteredOnes() {
    SampledEpochs data = TrainerTest.data(1, 1);
    int batches = data.batches(0);
    assertThat(batches).isGreaterThan(1);
    Recorder given = new Recorder();
    Recorder registered = new Recorder();
    Recorder closed = new Recorder();
    TrainProgress.register(closed).close();
    try (TrainProgress.Registration r = TrainProgress.register(registered)) {
      TrainerTest.trainer("sage", 2, 1).fit(data, null, tmp.resolve("m"), false, Map.of(), given);
    }

    List<String> expected = new ArrayList<>();
    expected.add("started 0/2");
    for (int e = 0; e < 2; e++) {
      expected.add("epoch " + e + "/2 of " + batches);
      for (int b = 1; b <= batches; b++) {
        expected.add("batch " + e + ":" + b + "/" + batches);
      }
      expected.add("end " + e + " after " + batches);
    }
    expected.add("finished");
    assertThat(given.events).containsExactlyElementsOf(expected);
    assertThat(registered.events).containsExactlyElementsOf(expected);
    assertThat(closed.events).isEmpty();
  }

  @Test
  void resumedRunStartsAtTheCheckpointAndFinishedFollowsAFailure() {
    Path dir = tmp.resolve("r");
    TrainerTest.trainer("sage", 1, 1)
        .fit(TrainerTest.data(1, 1), null, dir, false, Map.of(), TrainProgress.NONE);
    Recorder resumed = new Recorder();
    TrainerTest.trainer("sage", 2, 1)
        .fit(TrainerTest.data(1, 1), null, dir, true, Map.of(), resumed);
    assertThat(resumed.events.get(0)).isEqualTo("started 1/2");
    assertThat(resumed.events.get(1)).startsWith("epoch 1/2");

    Recorder refused = new Recorder();
    try {
      TrainerTest.trainer("sage", 3, 1)
          .fit(TrainerTest.data(1, 1), null, dir, false, Map.of(), refused);
    } catch (RuntimeException expectedRefusal) {
      // a checkpoint without --resume
    }
    assertThat(refused.events).containsExactly("finished");
  }

  @Test
  void printingKeepsTheTrainersLines() {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(buf, true, StandardCharsets.UTF_8);
    Path dir = tmp.resolve("p");
    TrainerTest.trainer("sage", 1, 1)
        .fit(TrainerTest.data(1, 1), null, dir, false, Map.of(), out, 2);
    TrainerTest.trainer("sage", 2, 1)
        .fit(TrainerTest.data(1, 1), null, dir, true, Map.of(), out, 0);

    String[] lines = buf.toString(StandardCharsets.UTF_8).split("\n");
    int batches = TrainerTest.data(1, 1).batches(0);
    List<String> shapes = new ArrayList<>();
    for (String l : lines) {
      shapes.add(l.replaceAll("[0-9]+\\.[0-9]+", "X"));
    }
    List<String> expected = new ArrayList<>();
    for (int b = 2; b <= batches; b += 2) {
      expected.add("epoch 0 batch " + b + " loss X seeds/s " + "N data-wait X%");
    }
    expected.add("epoch 1/1 loss X train-acc X Xs N seeds/s data-wait X%");
    expected.add("resuming from the checkpoint after epoch 0");
    expected.add("epoch 2/2 loss X train-acc X Xs N seeds/s data-wait X%");
    assertThat(
            shapes.stream()
                .map(
                    l ->
                        l.replaceAll("seeds/s [0-9]+", "seeds/s N")
                            .replaceAll("s [0-9]+ seeds", "s N seeds"))
                .toList())
        .containsExactlyElementsOf(expected);
  }
}
