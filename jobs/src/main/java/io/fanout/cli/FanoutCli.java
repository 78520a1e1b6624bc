package io.fanout.cli;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.options.FanoutKeys;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Entry point of {@code bin/fanout} and of {@code spark-submit --class io.fanout.cli.FanoutCli}.
 *
 * <p>Without {@code --master} (and without a {@code spark.master} set by spark-submit) commands run
 * on an embedded {@code local[*]} Spark. Bad input and bad options exit with status 2 and one clear
 * message (its stack trace goes to the log at debug level), and so does every other failure the
 * user can fix (paths, permissions, space, heap, ports, masters: {@link CommandFailure}); a bug
 * exits with status 1, its stack trace and a line saying it is a bug.
 */
public final class FanoutCli {
  private static final Logger LOG = LoggerFactory.getLogger(FanoutCli.class);

  private FanoutCli() {}

  public static void main(String[] args) {
    int code = run(Arrays.asList(args), System.out, System.err);
    System.out.flush();
    System.exit(code);
  }

  /** Runs one command line and returns its exit status; never calls {@code System.exit}. */
  public static int run(List<String> args, PrintStream out, PrintStream err) {
    if (args.isEmpty() || args.get(0).equals("--help") || args.get(0).equals("-h")) {
      err.println(usage());
      return args.isEmpty() ? 2 : 0;
    }
    Command command = Commands.find(args.get(0));
    if (command == null) {
      err.println("fanout: unknown command '" + args.get(0) + "'\n\n" + usage());
      return 2;
    }
    return run(command, args.subList(1, args.size()), out, err);
  }

  /** Runs {@code command} with the arguments that follow its name; returns the exit status. */
  static int run(Command command, List<String> args, PrintStream out, PrintStream err) {
    SessionHolder session = null;
    CommandProgress progress = null;
    PrintStream errors = err;
    try {
      CommandLine cl = CommandLine.parse(command, args);
      if (cl.help) {
        out.println(help(command));
        return 0;
      }
      if (!cl.positional.isEmpty() && command.positionalUsage().isEmpty()) {
        throw new FanoutConfigException(
            command.name() + " takes no positional arguments, got " + cl.positional);
      }
      FanoutKeys.refuseUnknown(cl.sparkConf.keySet());
      SparkMasters.check(cl.master, "--master");
      SparkMasters.check(cl.sparkConf.get("spark.master"), "--conf spark.master");
      SparkMasters.checkTaskResources(
          cl.master != null ? cl.master : cl.sparkConf.get("spark.master"), cl.sparkConf);
      Map<String, String> sparkConf = cl.sparkConf;
      FanoutConf conf =
          new FanoutConf(
              command.name(),
              command.options(),
              cl.options,
              k -> Optional.ofNullable(sparkConf.getOrDefault(k, System.getProperty(k))));
      progress = CommandProgress.start(cl.progress, err);
      errors = progress.err();
      session = new SessionHolder(command.name(), cl.master, sparkConf, progress::sparkStarted);
      return command.run(
          new CommandContext(conf, cl.positional, session, progress.out(out), progress.err()));
    } catch (Throwable e) {
      // The command's boundary: every failure is judged here, once, and what the command
      // allocated (a heap it ran out of) is unreachable again.
      return report(command, e, errors);
    } finally {
      if (progress != null) {
        progress.close();
      }
      if (session != null) {
        session.stop();
      }
    }
  }

  /**
   * Prints {@code e} as {@link CommandFailure} judges it: one line for a failure the user can fix
   * (its trace goes to the log at debug level), the trace and {@link CommandFailure#BUG_NOTE} for a
   * bug; returns the exit status.
   */
  static int report(Command command, Throwable e, PrintStream errors) {
    CommandFailure f = CommandFailure.of(e);
    if (f.userFixable()) {
      LOG.debug("fanout {}: refused", command.name(), e);
      errors.println("fanout " + command.name() + ": error: " + f.message());
      return CommandFailure.USER_EXIT;
    }
    errors.println("fanout " + command.name() + ": failed: " + e);
    e.printStackTrace(errors);
    errors.println("fanout " + command.name() + ": " + CommandFailure.BUG_NOTE);
    return CommandFailure.BUG_EXIT;
  }

  static String usage() {
    StringBuilder sb =
        new StringBuilder(
            "usage: bin/fanout <command> [--master URL] [--conf k=v ...] [options]\n\ncommands:\n");
    for (Command c : Commands.all()) {
      sb.append(String.format("  %-10s %s%n", c.name(), c.summary()));
    }
    sb.append("\n'bin/fanout <command> --help' lists a command's options and their defaults.");
    return sb.toString();
  }

  static String help(Command c) {
    String pos = c.positionalUsage().isEmpty() ? "" : " " + c.positionalUsage();
    return "usage: bin/fanout "
        + c.name()
        + " [options]"
        + pos
        + "\n"
        + c.summary()
        + "\n\noptions:\n"
        + FanoutConf.help(c.options())
        + "\n  --master URL     Spark master (default: spark.master if set, else local[*])"
        + "\n  --conf k=v       Spark or spark.fanout.* configuration, repeatable"
        + "\n  --progress MODE  auto, terminal, log or none (default: $FANOUT_PROGRESS, else"
        + " auto: a line\n                   rewritten in place on a terminal, else a log line"
        + " every 10 s)";
  }

  /** Starts the SparkSession on first use, stops it only if it started it. */
  private static final class SessionHolder implements Supplier<SparkSession> {
    private final String app;
    private final String master;
    private final Map<String, String> conf;
    private final java.util.function.Consumer<SparkSession> started;
    private SparkSession spark;
    private boolean owned;

    SessionHolder(
        String app,
        String master,
        Map<String, String> conf,
        java.util.function.Consumer<SparkSession> started) {
      this.app = app;
      this.master = master;
      this.conf = conf;
      this.started = started;
    }

    @Override
    public synchronized SparkSession get() {
      if (spark == null) {
        Optional<SparkSession> active =
            SparkSession.getActiveSession().isDefined()
                ? Optional.of(SparkSession.getActiveSession().get())
                : Optional.empty();
        if (active.isPresent() && master == null) {
          spark = active.get();
          started.accept(spark);
          return spark;
        }
        SparkDriverHeap.check(conf, Runtime.getRuntime().maxMemory());
        SparkSession.Builder b = SparkSession.builder().appName("fanout " + app);
        if (master != null) {
          b.master(master);
        } else if (System.getProperty("spark.master") == null) {
          b.master("local[*]");
        }
        conf.forEach(b::config);
        if (System.getProperty("spark.ui.enabled") == null
            && !conf.containsKey("spark.ui.enabled")) {
          b.config("spark.ui.enabled", "false");
        }
        spark = b.getOrCreate();
        owned = true;
        started.accept(spark);
      }
      return spark;
    }

    void stop() {
      if (spark != null && owned) {
        spark.stop();
      }
    }
  }
}
