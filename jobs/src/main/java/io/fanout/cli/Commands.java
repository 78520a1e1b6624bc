package io.fanout.cli;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * The registry of {@code bin/fanout} commands, in help order: every {@link CommandProvider} on the
 * class path, by {@link CommandProvider#order()}, each provider's commands in its own order.
 */
final class Commands {
  private Commands() {}

  static List<Command> all() {
    List<CommandProvider> providers = new ArrayList<>();
    ServiceLoader.load(CommandProvider.class, Commands.class.getClassLoader())
        .forEach(providers::add);
    providers.sort(
        Comparator.comparingInt(CommandProvider::order).thenComparing(p -> p.getClass().getName()));
    List<Command> all = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (CommandProvider p : providers) {
      for (Command c : p.commands()) {
        if (!names.add(c.name())) {
          throw new IllegalStateException(
              "two commands named '"
                  + c.name()
                  + "' (the second from "
                  + p.getClass().getName()
                  + ")");
        }
        all.add(c);
      }
    }
    return List.copyOf(all);
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
