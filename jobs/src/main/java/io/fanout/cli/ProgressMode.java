package io.fanout.cli;

import io.fanout.conf.FanoutConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * How {@code bin/fanout} shows progress on standard error.
 *
 * <p>Chosen by {@code --progress auto|terminal|log|none}, else the environment variable {@code
 * FANOUT_PROGRESS}, else {@code auto}. {@code auto} is {@link #TERMINAL} when standard error is a
 * terminal and {@code TERM} is not {@code dumb}, else {@link #LOG}; it is also {@link #LOG} when
 * the command writes to another stream than the process's standard error (an in-process run).
 * Whether standard error is a terminal: the {@code fanout.stderr.tty} system property when set
 * ({@code bin/fanout} sets it from {@code [ -t 2 ]}), else where {@code /proc/self/fd/2} exists,
 * whether it links to a {@code /dev/pts/} or {@code /dev/tty} device, else whether the JVM has a
 * console ({@code System.console()}, which looks at standard input and output).
 */
enum ProgressMode {
  /** One line rewritten in place with {@code \r}, a few times a second. */
  TERMINAL,
  /** Plain lines, at most one per period, and one at each epoch end. */
  LOG,
  /** Nothing. */
  NONE;

  static final String ENV = "FANOUT_PROGRESS";

  /**
   * The mode for an explicit {@code --progress} value (null when absent) and the environment's.
   *
   * @param processStderr true when the command writes to the process's standard error
   * @param term the {@code TERM} environment variable, or null
   */
  static ProgressMode resolve(
      String option, String env, boolean processStderr, String term, StderrTty tty) {
    String requested = option != null ? option : env != null && !env.isBlank() ? env : "auto";
    String where = option != null ? "--progress" : "the environment variable " + ENV;
    switch (requested.trim().toLowerCase(Locale.ROOT)) {
      case "terminal":
        return TERMINAL;
      case "log":
        return LOG;
      case "none":
        return NONE;
      case "auto":
        boolean terminal =
            processStderr && !"dumb".equals(term) && term != null && tty.isTerminal();
        return terminal ? TERMINAL : LOG;
      default:
        throw new FanoutConfigException(
            where + " is '" + requested + "'; expected auto, terminal, log or none");
    }
  }

  /** Whether the process's standard error is a terminal. */
  @FunctionalInterface
  interface StderrTty {
    boolean isTerminal();

    /** The rule documented on {@link ProgressMode}. */
    StderrTty SYSTEM =
        () -> {
          String prop = System.getProperty("fanout.stderr.tty");
          if (prop != null) {
            return Boolean.parseBoolean(prop);
          }
          Path fd = Path.of("/proc/self/fd/2");
          if (Files.exists(fd, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            try {
              String target = Files.readSymbolicLink(fd).toString();
              return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
            } catch (IOException | UnsupportedOperationException e) {
              return false;
            }
          }
          return System.console() != null;
        };
  }
}
