package io.fanout.bench.train;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.tensor.Backend;
import io.fanout.tensor.Backends;

/** The backend a training benchmark runs on: {@code --backend}, with {@code --precision}. */
final class BenchBackend {
  private BenchBackend() {}

  /** {@code --backend} on its default device, its dense products in {@code --precision}. */
  static Backend select(FanoutConf c) {
    Backend be = Backends.select(c.get(TrainCommandOptions.BACKEND), -1);
    try {
      be.matmulPrecision(c.get(TrainCommandOptions.PRECISION));
    } catch (RuntimeException e) {
      try {
        be.close();
      } catch (Exception x) {
        e.addSuppressed(x);
      }
      throw e;
    }
    return be;
  }
}
