package io.fanout.conf;

import io.fanout.sample.Fanouts;

/** Options that several commands share, with one name, default and meaning. */
public final class SharedOptions {
  private SharedOptions() {}

  /**
   * Checking what a command reads: {@code sample}, {@code train}, {@code evaluate} and {@code
   * infer}. Also read as {@code spark.fanout.verify}, so a session can turn it off for every stage.
   */
  public static final OptionDef<Boolean> VERIFY =
      OptionDef.bool(
          "verify",
          true,
          "check every file read against its manifest's size and CRC32C and refuse a damaged one:"
              + " the graph store's files once per process (in parallel), each shard part as it"
              + " is read, before any of its batches is used; false skips the checks");

  /**
   * Parses a {@code --fanouts} value such as {@code 15,10,5} with {@link Fanouts#parse}, the one
   * parser of that syntax; blank means none (null).
   *
   * @throws FanoutConfigException naming the option and the value
   */
  public static int[] fanouts(String s) {
    if (s == null || s.isBlank()) {
      return null;
    }
    try {
      return Fanouts.parse(s);
    } catch (IllegalArgumentException e) {
      throw new FanoutConfigException("--fanouts has value '" + s + "': " + e.getMessage());
    }
  }
}
