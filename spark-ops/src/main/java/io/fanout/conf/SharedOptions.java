package io.fanout.conf;

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
}
