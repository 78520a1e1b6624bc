package io.fanout.cli;

import java.util.List;

/** The registry of {@code bin/fanout} commands, in help order. */
final class Commands {
  private Commands() {}

  static List<Command> all() {
    return List.of(
        new io.fanout.jobs.store.PrepareCommand(),
        new io.fanout.jobs.store.QuantizeCommand(),
        new io.fanout.jobs.store.InspectCommand(),
        new io.fanout.jobs.store.GenerateCommand(),
        new io.fanout.jobs.sample.SampleCommand(),
        new io.fanout.jobs.train.TrainCommand(),
        new io.fanout.jobs.train.EvaluateCommand(),
        new io.fanout.jobs.train.InferCommand(),
        new io.fanout.jobs.train.QuickstartCommand(),
        new io.fanout.jobs.store.BenchPrepareCommand(),
        new io.fanout.jobs.store.BenchPartitionCommand(),
        new io.fanout.jobs.sample.BenchSampleCommand(),
        new io.fanout.jobs.train.BenchTrainCommand(),
        new io.fanout.jobs.train.BenchFeaturesCommand(),
        new io.fanout.jobs.train.BenchCacheCommand(),
        new io.fanout.jobs.dist.BenchAllReduceCommand());
  }

  static Command find(String name) {
    for (Command c : all()) {
      if (c.name().equals(name)) {
        return c;
      }
    }
    return null;
  }
}
