package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import java.util.List;

/** The options of {@code bin/fanout inspect}. */
public final class InspectOptions {
  private InspectOptions() {}

  public static final OptionDef<Boolean> NO_CHECKSUMS =
      OptionDef.bool("no-checksums", false, "skip reading every file to verify its CRC32C");

  public static final OptionDef<String> COMPARE =
      OptionDef.string(
          "compare",
          "",
          "an f32 store of the same graph: report how far this store's decoded features are from"
              + " it (max and mean absolute error, rows decoded exactly); on a typed store, per"
              + " featured type against a typed store keeping that type in f32");

  /** Every option of the command, in help order. */
  public static final List<OptionDef<?>> ALL = List.of(NO_CHECKSUMS, COMPARE);
}
