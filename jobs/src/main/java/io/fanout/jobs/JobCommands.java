package io.fanout.jobs;

import io.fanout.cli.Command;
import io.fanout.cli.CommandProvider;
import io.fanout.jobs.sample.SampleCommand;
import io.fanout.jobs.store.GenerateCommand;
import io.fanout.jobs.store.InspectCommand;
import io.fanout.jobs.store.PrepareCommand;
import io.fanout.jobs.store.QuantizeCommand;
import io.fanout.jobs.train.EvaluateCommand;
import io.fanout.jobs.train.InferCommand;
import io.fanout.jobs.train.QuickstartCommand;
import io.fanout.jobs.train.TrainCommand;
import java.util.List;

/** The pipeline's commands (prepare to quickstart), listed first in {@code bin/fanout --help}. */
public final class JobCommands implements CommandProvider {
  @Override
  public int order() {
    return 0;
  }

  @Override
  public List<Command> commands() {
    return List.of(
        new PrepareCommand(),
        new QuantizeCommand(),
        new InspectCommand(),
        new GenerateCommand(),
        new SampleCommand(),
        new TrainCommand(),
        new EvaluateCommand(),
        new InferCommand(),
        new QuickstartCommand());
  }
}
