package io.fanout.cli;

import java.util.List;

/**
 * A module's {@code bin/fanout} commands, found by {@link java.util.ServiceLoader}: a module lists
 * its implementation in {@code META-INF/services/io.fanout.cli.CommandProvider}, so the CLI names
 * no command package. Implementations need a public no-argument constructor.
 */
public interface CommandProvider {
  /**
   * Where this provider's commands appear in {@code bin/fanout --help}: lower first. Two providers
   * with the same order are listed by class name.
   */
  int order();

  /** The commands, in help order; no two providers may declare the same name. */
  List<Command> commands();
}
