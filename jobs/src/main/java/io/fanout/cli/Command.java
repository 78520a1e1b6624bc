package io.fanout.cli;

import io.fanout.conf.OptionDef;
import java.util.List;

/**
 * One {@code bin/fanout} command. Implementations are stateless; {@link FanoutCli} parses the
 * command line against {@link #options()}, resolves them through {@link io.fanout.conf.FanoutConf}
 * and calls {@link #run}.
 */
public interface Command {
  /** The word after {@code bin/fanout}, e.g. {@code prepare}. */
  String name();

  /** One line for {@code bin/fanout --help}. */
  String summary();

  /** Usage of positional arguments for help, e.g. {@code "STORE"}; empty when none are taken. */
  default String positionalUsage() {
    return "";
  }

  /** Every option the command accepts, with documented defaults. */
  List<OptionDef<?>> options();

  /**
   * Runs the command. Machine-readable results go to {@link CommandContext#out()}, progress to
   * {@link CommandContext#err()}.
   *
   * @return the process exit code
   */
  int run(CommandContext ctx) throws Exception;
}
