package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.store.FeatureLayoutKind;
import java.util.List;
import java.util.Map;

/**
 * The options of {@code bin/fanout quantize}: where to write, the encoding options (as {@code
 * prepare} takes them: one encoding, or one per vertex type of a typed store), and the order of the
 * rows on disk.
 */
public final class QuantizeCommandOptions {
  private QuantizeCommandOptions() {}

  /** {@link PrepareOptions#FEATURE_LAYOUT}: one option, one meaning, in both commands. */
  public static final OptionDef<FeatureLayoutKind> FEATURE_LAYOUT = PrepareOptions.FEATURE_LAYOUT;

  /** Records the layout among a store's options only when it is not identity. */
  public static void pruneRecorded(Map<String, String> recorded, FeatureLayoutKind layout) {
    PrepareOptions.pruneRecordedLayout(recorded, layout);
  }

  /** Every option of the command, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          PrepareOptions.OUTPUT,
          PrepareOptions.OVERWRITE,
          PrepareOptions.FEATURE_ENCODING,
          QuantizeOptions.PQ_GROUP_SIZE,
          QuantizeOptions.PQ_SAMPLE_ROWS,
          QuantizeOptions.PQ_SEED,
          FEATURE_LAYOUT);
}
