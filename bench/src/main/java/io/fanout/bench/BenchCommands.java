package io.fanout.bench;

import io.fanout.bench.dist.BenchAllReduceCommand;
import io.fanout.bench.sample.BenchSampleCommand;
import io.fanout.bench.store.BenchPartitionCommand;
import io.fanout.bench.store.BenchPrepareCommand;
import io.fanout.bench.train.BenchCacheCommand;
import io.fanout.bench.train.BenchFeaturesCommand;
import io.fanout.bench.train.BenchOutOfCoreCommand;
import io.fanout.bench.train.BenchTrainCommand;
import io.fanout.cli.Command;
import io.fanout.cli.CommandProvider;
import java.util.List;

/** The {@code bench-*} commands, listed after the pipeline's in {@code bin/fanout --help}. */
public final class BenchCommands implements CommandProvider {
  @Override
  public int order() {
    return 100;
  }

  @Override
  public List<Command> commands() {
    return List.of(
        new BenchPrepareCommand(),
        new BenchPartitionCommand(),
        new BenchSampleCommand(),
        new BenchTrainCommand(),
        new BenchFeaturesCommand(),
        new BenchCacheCommand(),
        new BenchOutOfCoreCommand(),
        new BenchAllReduceCommand());
  }
}
