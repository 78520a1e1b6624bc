package io.fanout.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.train.Accuracy;
import io.fanout.train.EpochStats;
import io.fanout.train.TrainProgress;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The progress line in both modes, on an injected clock and a captured stream. */
class ProgressRendererTest {
  /** A clock the test moves. */
  static final class Clock {
    long nanos = 1_000_000_000L;

    void advanceMillis(long ms) {
      nanos += TimeUnit.MILLISECONDS.toNanos(ms);
    }
  }

  final Clock clock = new Clock();
  final ByteArrayOutputStream captured = new ByteArrayOutputStream();
  final PrintStream stream = new PrintStream(captured, true, StandardCharsets.UTF_8);

  ProgressRenderer renderer(ProgressMode mode) {
    return new ProgressRenderer(
        stream,
        mode,
        () -> clock.nanos,
        ProgressRenderer.REDRAW_NANOS,
        ProgressRenderer.LOG_PERIOD_NANOS,
        120);
  }

  String text() {
    return captured.toString(StandardCharsets.UTF_8);
  }

  /** Two epochs of 10 batches, one batch every {@code stepMillis}. */
  void train(TrainProgressView view, long stepMillis) {
    view.started(0, 2);
    for (int e = 0; e < 2; e++) {
      view.epochStarted(e, 2, 10);
      for (int b = 1; b <= 10; b++) {
        clock.advanceMillis(stepMillis);
        view.batchDone(new TrainProgress.Batch(e, 2, b, 10, 1.0 / b, 32L * b, 0, 0));
      }
      view.epochEnded(
          new EpochStats(e, 0.25, 0.9, 10, 320, 1, 0, 0.01f), 2, new Accuracy(3, 4, 1.0));
    }
    view.finished();
  }

  @Test
  void terminalRewritesOneLineWithEpochBatchRateAndEta() {
    ProgressRenderer r = renderer(ProgressMode.TERMINAL);
    TrainProgressView view = new TrainProgressView(r);
    view.started(0, 2);
    view.epochStarted(0, 2, 10);
    clock.advanceMillis(500);
    view.batchDone(new TrainProgress.Batch(0, 2, 1, 10, 0.75, 32, 0.5, 0));
    clock.advanceMillis(500);
    view.batchDone(new TrainProgress.Batch(0, 2, 2, 10, 0.5, 64, 1, 0));

    // 2 batches in 1 s: 2.0 batches/s; 8 + 10 batches left: 9 s
    assertThat(text())
        .isEqualTo(
            "\rtrain: epoch 1/2 batch 1/10 | 2.0 batches/s | loss 0.7500 | ETA 10s"
                + "\rtrain: epoch 1/2 batch 2/10 | 2.0 batches/s | loss 0.5000 | ETA 9s"
                + " ") // blanks the last character of the longer line before
        .doesNotContain("\n");
    assertThat(view.active()).isTrue();

    view.finished();
    assertThat(view.active()).isFalse();
    // the live line is blanked out and the cursor left at its start
    int live = "train: epoch 1/2 batch 2/10 | 2.0 batches/s | loss 0.5000 | ETA 9s".length();
    assertThat(text()).endsWith("ETA 9s \r" + " ".repeat(live) + "\r");
  }

  @Test
  void terminalRedrawsAtMostFiveTimesASecondButAlwaysAtEpochEnds() {
    ProgressRenderer r = renderer(ProgressMode.TERMINAL);
    train(new TrainProgressView(r), 50); // 20 batches a second, 0.5 s per epoch

    String out = text();
    String[] parts = out.split("\r", -1);
    List<String> draws = Arrays.asList(parts).subList(1, parts.length);
    // batches end at 50, 100, ... ms: drawn at 50, 250, 450, then (after the epoch end's draw at
    // 500) at 700 and 900: never two within 200 ms
    assertThat(draws).filteredOn(d -> d.contains(" batch ")).hasSize(5);
    assertThat(draws.get(0)).startsWith("train: epoch 1/2 batch 1/10 ");
    assertThat(draws.get(1)).startsWith("train: epoch 1/2 batch 5/10 ");
    assertThat(draws.get(2)).startsWith("train: epoch 1/2 batch 9/10 ");
    assertThat(draws.get(4)).startsWith("train: epoch 2/2 batch 4/10 ");
    assertThat(draws)
        .filteredOn(d -> d.contains("done"))
        .hasSize(2)
        .first()
        .asString()
        .startsWith(
            "train: epoch 1/2 done | 20.0 batches/s | loss 0.2500 | val-acc 0.7500 | ETA 1s");
    assertThat(out).doesNotContain("\n");
    // a shorter line pads over the longer one before it
    assertThat(draws.get(1).length()).isGreaterThanOrEqualTo(draws.get(0).length());
  }

  @Test
  void logPrintsPlainLinesNoMoreOftenThanThePeriodAndAtEveryEpochEnd() {
    ProgressRenderer r = renderer(ProgressMode.LOG);
    train(new TrainProgressView(r), 3_000); // 30 s per epoch

    List<String> lines = Arrays.asList(text().split("\n"));
    assertThat(text()).doesNotContain("\r").endsWith("\n");
    // batches at 3, 6, ... s: lines at 12, 24, 36(=epoch end), then 48, 60(=end) -> period kept
    assertThat(lines)
        .containsExactly(
            "train: epoch 1/2 batch 4/10 | 0.3 batches/s | loss 0.2500 | ETA 48s",
            "train: epoch 1/2 batch 8/10 | 0.3 batches/s | loss 0.1250 | ETA 36s",
            "train: epoch 1/2 done | 0.3 batches/s | loss 0.2500 | val-acc 0.7500 | ETA 30s",
            "train: epoch 2/2 batch 4/10 | 0.3 batches/s | loss 0.2500 | ETA 18s",
            "train: epoch 2/2 batch 8/10 | 0.3 batches/s | loss 0.1250 | ETA 6s",
            "train: epoch 2/2 done | 0.3 batches/s | loss 0.2500 | val-acc 0.7500 | ETA 0s");
  }

  @Test
  void logStaysQuietDuringTheFirstPeriodAndNoneNeverWrites() {
    ProgressRenderer log = renderer(ProgressMode.LOG);
    clock.advanceMillis(9_999);
    log.show("sample: sort seeds (1/4) | tasks 1/4", false);
    assertThat(text()).isEmpty();
    clock.advanceMillis(1);
    log.show("sample: sort seeds (1/4) | tasks 2/4", false);
    clock.advanceMillis(9_999);
    log.show("sample: sort seeds (1/4) | tasks 3/4", false);
    assertThat(text()).isEqualTo("sample: sort seeds (1/4) | tasks 2/4\n");

    ProgressRenderer none = renderer(ProgressMode.NONE);
    train(new TrainProgressView(none), 3_000);
    none.show("x", true);
    none.close();
    assertThat(text()).isEqualTo("sample: sort seeds (1/4) | tasks 2/4\n");
  }

  @Test
  void lineSafeStreamClearsTheLiveLineFirstAndLongLinesAreCut() {
    ProgressRenderer r =
        new ProgressRenderer(stream, ProgressMode.TERMINAL, () -> clock.nanos, 0, 0, 20);
    r.show("prepare: validate edges (2/6) | tasks 1/2", false);
    r.lineSafe().println("epoch 1/2 loss 0.5");
    clock.advanceMillis(1);
    r.show("short", false);

    assertThat(text())
        .isEqualTo(
            "\rprepare: validate ed"
                + "\r"
                + " ".repeat(20)
                + "\r"
                + "epoch 1/2 loss 0.5"
                + System.lineSeparator()
                + "\rshort");
  }

  @Test
  void resultsOnStandardOutputClearTheLiveLineAndAnUnchangedLineIsNotRedrawn() {
    ProgressRenderer r =
        new ProgressRenderer(stream, ProgressMode.TERMINAL, () -> clock.nanos, 0, 0, 80);
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    PrintStream results = r.lineSafe(new PrintStream(stdout, true, StandardCharsets.UTF_8));
    r.show("generate: write edges (2/2) | tasks 1/4", false);
    clock.advanceMillis(1);
    r.show("generate: write edges (2/2) | tasks 1/4", false);
    results.println("{\"seconds\":1.5}");

    assertThat(text())
        .isEqualTo("\rgenerate: write edges (2/2) | tasks 1/4\r" + " ".repeat(39) + "\r");
    assertThat(stdout.toString(StandardCharsets.UTF_8))
        .isEqualTo("{\"seconds\":1.5}" + System.lineSeparator());
  }

  @Test
  void aLongDescriptionIsShortenedBeforeTheFigures() {
    String line =
        "prepare: validate vertices and count them per partition (4/6) | tasks 1/4 | ETA 9s";
    assertThat(ProgressRenderer.fit(line, 200)).isEqualTo(line);
    assertThat(ProgressRenderer.fit(line, 50))
        .isEqualTo("prepare: validate vertices... | tasks 1/4 | ETA 9s")
        .hasSize(50);
    assertThat(ProgressRenderer.fit("no figures in this rather long line", 20))
        .isEqualTo("no figures in this r");
  }

  @Test
  void sparkJobLineNamesTheStepTasksRateAndEta() {
    assertThat(
            SparkJobProgress.line(
                "fanout prepare: sort edges by destination and write csr files (6/6)", 12, 40, 4))
        .isEqualTo(
            "prepare: sort edges by destination and write csr files (6/6) | tasks 12/40"
                + " | 4.0 tasks/s | ETA 7s");
    assertThat(SparkJobProgress.line("count at Foo.java:12", 0, 3, Double.NaN))
        .isEqualTo("count at Foo.java:12 | tasks 0/3");
  }

  @Test
  void durationsAndRates() {
    assertThat(ProgressRenderer.duration(0)).isEqualTo("0s");
    assertThat(ProgressRenderer.duration(59.4)).isEqualTo("59s");
    assertThat(ProgressRenderer.duration(185)).isEqualTo("3m05s");
    assertThat(ProgressRenderer.duration(3720)).isEqualTo("1h02m");
    assertThat(ProgressRenderer.duration(Double.NaN)).isEqualTo("?");
    assertThat(ProgressRenderer.duration(Double.POSITIVE_INFINITY)).isEqualTo("?");
    assertThat(ProgressRenderer.rate(2.345)).isEqualTo("2.3");
    assertThat(ProgressRenderer.rate(1234.5)).isEqualTo("1235");
  }

  @Test
  void modeFollowsTheOptionThenTheEnvironmentThenTheTerminal() {
    ProgressMode.StderrTty tty = () -> true;
    ProgressMode.StderrTty pipe = () -> false;
    assertThat(ProgressMode.resolve("log", "terminal", true, "xterm", tty))
        .isEqualTo(ProgressMode.LOG);
    assertThat(ProgressMode.resolve(null, "none", true, "xterm", tty)).isEqualTo(ProgressMode.NONE);
    assertThat(ProgressMode.resolve(null, "TERMINAL", false, null, pipe))
        .isEqualTo(ProgressMode.TERMINAL);
    assertThat(ProgressMode.resolve(null, null, true, "xterm-256color", tty))
        .isEqualTo(ProgressMode.TERMINAL);
    assertThat(ProgressMode.resolve("auto", "", true, "xterm", pipe)).isEqualTo(ProgressMode.LOG);
    assertThat(ProgressMode.resolve(null, null, true, "dumb", tty)).isEqualTo(ProgressMode.LOG);
    assertThat(ProgressMode.resolve(null, null, true, null, tty)).isEqualTo(ProgressMode.LOG);
    // another stream than the process's stderr (an in-process run) is never a terminal
    assertThat(ProgressMode.resolve(null, null, false, "xterm", tty)).isEqualTo(ProgressMode.LOG);
    assertThatThrownBy(() -> ProgressMode.resolve("fancy", null, true, "xterm", tty))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("--progress is 'fancy'")
        .hasMessageContaining("auto, terminal, log or none");
    assertThatThrownBy(() -> ProgressMode.resolve(null, "bars", true, "xterm", tty))
        .hasMessageContaining("FANOUT_PROGRESS is 'bars'");
  }
}
