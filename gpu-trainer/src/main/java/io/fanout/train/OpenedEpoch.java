package io.fanout.train;

/** An epoch's stream opened ahead of time, or the error opening it raised (rethrown on use). */
record OpenedEpoch(BatchStream stream, RuntimeException error) {
  static OpenedEpoch of(Trainer trainer, EpochData data, int epoch) {
    try {
      return new OpenedEpoch(trainer.open(data, epoch), null);
    } catch (RuntimeException e) {
      return new OpenedEpoch(null, e);
    }
  }

  BatchStream get() {
    if (error != null) {
      throw error;
    }
    return stream;
  }

  void close() {
    if (stream != null) {
      stream.close();
    }
  }
}
