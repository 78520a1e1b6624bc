package io.fanout.cli;

import io.fanout.conf.FanoutConf;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;

/**
 * What a running {@link Command} gets: its resolved options, positional arguments, the output
 * streams and a lazily started SparkSession (commands that need no Spark never start one).
 */
public final class CommandContext {
  private final FanoutConf conf;
  private final List<String> positional;
  private final Supplier<SparkSession> spark;
  private final PrintStream out;
  private final PrintStream err;

  public CommandContext(
      FanoutConf conf,
      List<String> positional,
      Supplier<SparkSession> spark,
      PrintStream out,
      PrintStream err) {
    this.conf = conf;
    this.positional = List.copyOf(positional);
    this.spark = spark;
    this.out = out;
    this.err = err;
  }

  public FanoutConf conf() {
    return conf;
  }

  /**
   * The command's options given on the command line or as {@code spark.fanout.<name>}, as name ->
   * raw value: what a command hands to its {@code io.fanout.spark.Fanout} action, which resolves
   * the rest to their defaults as for an API call (an action that tells a given value from a
   * default, e.g. {@code --model hgn}'s own attention defaults, sees the same on both paths).
   */
  public Map<String, String> options() {
    return conf.given();
  }

  public List<String> positional() {
    return positional;
  }

  /** The session, started on first use from {@code --master} and {@code --conf}. */
  public SparkSession spark() {
    return spark.get();
  }

  /** Standard output: JSON results only. */
  public PrintStream out() {
    return out;
  }

  /** Standard error: progress and log lines. */
  public PrintStream err() {
    return err;
  }
}
