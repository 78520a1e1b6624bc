package io.fanout.train;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The JVM's registered {@link TrainProgress} listeners, and fan-out to several listeners. */
final class TrainProgressListeners {
  private TrainProgressListeners() {}

  private static final List<TrainProgress> LISTENERS = new CopyOnWriteArrayList<>();

  /** Every registered listener, as of each call. */
  static final TrainProgress REGISTERED =
      new TrainProgress() {
        @Override
        public void started(int first, int epochs) {
          for (TrainProgress l : LISTENERS) {
            l.started(first, epochs);
          }
        }

        @Override
        public void epochStarted(int epoch, int epochs, int batches) {
          for (TrainProgress l : LISTENERS) {
            l.epochStarted(epoch, epochs, batches);
          }
        }

        @Override
        public void batchDone(Batch batch) {
          for (TrainProgress l : LISTENERS) {
            l.batchDone(batch);
          }
        }

        @Override
        public void epochEnded(EpochStats stats, int epochs, Accuracy validation) {
          for (TrainProgress l : LISTENERS) {
            l.epochEnded(stats, epochs, validation);
          }
        }

        @Override
        public void stoppedEarly(int epoch, int bestEpoch, int patience) {
          for (TrainProgress l : LISTENERS) {
            l.stoppedEarly(epoch, bestEpoch, patience);
          }
        }

        @Override
        public void finished() {
          for (TrainProgress l : LISTENERS) {
            l.finished();
          }
        }
      };

  static TrainProgress.Registration add(TrainProgress listener) {
    TrainProgress l = java.util.Objects.requireNonNull(listener);
    LISTENERS.add(l);
    return () -> LISTENERS.remove(l);
  }

  /** Two listeners in order. */
  record Both(TrainProgress a, TrainProgress b) implements TrainProgress {
    @Override
    public void started(int first, int epochs) {
      a.started(first, epochs);
      b.started(first, epochs);
    }

    @Override
    public void epochStarted(int epoch, int epochs, int batches) {
      a.epochStarted(epoch, epochs, batches);
      b.epochStarted(epoch, epochs, batches);
    }

    @Override
    public void batchDone(Batch batch) {
      a.batchDone(batch);
      b.batchDone(batch);
    }

    @Override
    public void epochEnded(EpochStats stats, int epochs, Accuracy validation) {
      a.epochEnded(stats, epochs, validation);
      b.epochEnded(stats, epochs, validation);
    }

    @Override
    public void stoppedEarly(int epoch, int bestEpoch, int patience) {
      a.stoppedEarly(epoch, bestEpoch, patience);
      b.stoppedEarly(epoch, bestEpoch, patience);
    }

    @Override
    public void finished() {
      a.finished();
      b.finished();
    }
  }
}
