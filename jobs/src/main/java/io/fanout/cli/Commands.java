package io.fanout.cli;

import java.util.List;

/** The registry of {@code bin/fanout} commands, in help order. */
final class Commands {
  private Commands() {}

  static List<Command> all() {
    return List.of(new io.fanout.dist.BenchAllReduceCommand());
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
