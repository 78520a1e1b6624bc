package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import java.util.List;

/** The options of {@code bin/fanout quantize}: where to write, and the encoding options. */
public final class QuantizeCommandOptions {
  private QuantizeCommandOptions() {}

  /** Every option of the command, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          PrepareOptions.OUTPUT,
          PrepareOptions.OVERWRITE,
          QuantizeOptions.FEATURE_ENCODING,
          QuantizeOptions.PQ_GROUP_SIZE,
          QuantizeOptions.PQ_SAMPLE_ROWS,
          QuantizeOptions.PQ_SEED);
}
