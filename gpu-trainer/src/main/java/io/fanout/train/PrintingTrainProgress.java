package io.fanout.train;

import java.io.PrintStream;
import java.util.Locale;

/** {@link TrainProgress#printing}: the trainer's plain progress lines on a stream. */
final class PrintingTrainProgress implements TrainProgress {
  private final PrintStream out;
  private final int logEvery;

  PrintingTrainProgress(PrintStream out, int logEvery) {
    this.out = out;
    this.logEvery = logEvery;
  }

  @Override
  public void started(int first, int epochs) {
    if (first > 0) {
      out.printf("resuming from the checkpoint after epoch %d%n", first - 1);
    }
  }

  @Override
  public void batchDone(Batch b) {
    if (logEvery > 0 && b.batch() % logEvery == 0) {
      out.printf(
          Locale.ROOT,
          "epoch %d batch %d loss %.4f seeds/s %.0f data-wait %.1f%%%n",
          b.epoch(),
          b.batch(),
          b.meanLoss(),
          b.examples() / b.seconds(),
          100 * b.waitSeconds() / b.seconds());
    }
  }

  @Override
  public void epochEnded(EpochStats s, int epochs, Accuracy va) {
    out.printf(
        Locale.ROOT,
        "epoch %d/%d loss %.4f train-acc %.4f%s %.1fs %.0f seeds/s data-wait %.1f%%%n",
        s.epoch() + 1,
        epochs,
        s.loss(),
        s.accuracy(),
        va == null ? "" : String.format(Locale.ROOT, " val-acc %.4f", va.value()),
        s.seconds(),
        s.seeds() / s.seconds(),
        100 * s.waitFraction());
  }

  @Override
  public void stoppedEarly(int epoch, int bestEpoch, int patience) {
    out.println(EarlyStop.line(epoch + 1, bestEpoch + 1, patience, "val-acc"));
  }
}
