package io.fanout.cli;

import io.fanout.train.Accuracy;
import io.fanout.train.EpochStats;
import io.fanout.train.TrainProgress;
import java.util.Locale;

/**
 * A training run's progress as one line: {@code train: epoch 3/50 batch 12/20 | 8.4 batches/s |
 * loss 0.8123 | ETA 2m13s}, and at each epoch's end a milestone line with the epoch's loss (and
 * validation accuracy). Rates and ETA come from the renderer's clock: the steps done since the
 * epoch started over the time since then; the ETA counts the rest of this epoch and the epochs
 * after it.
 */
final class TrainProgressView implements TrainProgress {
  private final ProgressRenderer renderer;
  private volatile boolean active;
  private int batches = -1;
  private long epochStart;

  TrainProgressView(ProgressRenderer renderer) {
    this.renderer = renderer;
  }

  /** True between a run's start and its end: its line then has the terminal to itself. */
  boolean active() {
    return active;
  }

  @Override
  public void started(int first, int epochs) {
    active = true;
  }

  @Override
  public void epochStarted(int epoch, int epochs, int batches) {
    this.batches = batches;
    this.epochStart = renderer.now();
  }

  @Override
  public void batchDone(Batch b) {
    double secs = (renderer.now() - epochStart) / 1e9;
    double rate = secs > 0 ? b.batch() / secs : Double.NaN;
    StringBuilder sb =
        new StringBuilder("train: epoch ")
            .append(b.epoch() + 1)
            .append('/')
            .append(b.epochs())
            .append(" batch ")
            .append(b.batch());
    if (b.batches() > 0) {
      sb.append('/').append(b.batches());
    }
    sb.append(" | ").append(ProgressRenderer.rate(rate)).append(" batches/s");
    sb.append(String.format(Locale.ROOT, " | loss %.4f", b.meanLoss()));
    if (b.batches() > 0) {
      long left =
          (long) (b.batches() - b.batch()) + (long) (b.epochs() - b.epoch() - 1) * b.batches();
      sb.append(" | ETA ").append(ProgressRenderer.duration(left / rate));
    }
    renderer.show(sb.toString(), false);
  }

  @Override
  public void epochEnded(EpochStats s, int epochs, Accuracy validation) {
    double secs = (renderer.now() - epochStart) / 1e9;
    double rate = secs > 0 ? s.batches() / secs : Double.NaN;
    StringBuilder sb =
        new StringBuilder("train: epoch ")
            .append(s.epoch() + 1)
            .append('/')
            .append(epochs)
            .append(" done | ")
            .append(ProgressRenderer.rate(rate))
            .append(" batches/s")
            .append(String.format(Locale.ROOT, " | loss %.4f", s.loss()));
    if (validation != null) {
      sb.append(String.format(Locale.ROOT, " | val-acc %.4f", validation.value()));
    }
    int left = epochs - s.epoch() - 1;
    sb.append(" | ETA ").append(ProgressRenderer.duration(left * (double) s.batches() / rate));
    renderer.show(sb.toString(), true);
  }

  @Override
  public void finished() {
    active = false;
    renderer.clear();
  }
}
