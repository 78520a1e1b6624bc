package io.fanout.conf.options;

import io.fanout.conf.OptionDef;
import io.fanout.store.FeatureLayoutKind;
import java.util.List;
import java.util.Map;

/**
 * The options of {@code bin/fanout quantize}: where to write, the encoding options, and the order
 * of the rows on disk.
 */
public final class QuantizeCommandOptions {
  private QuantizeCommandOptions() {}

  public static final OptionDef<FeatureLayoutKind> FEATURE_LAYOUT =
      OptionDef.enumeration(
          "feature-layout",
          FeatureLayoutKind.IDENTITY,
          "order of the feature rows inside each partition's file: identity (at their ids) or"
              + " neighborhood (each training vertex followed by its two-hop in-neighbors, so rows"
              + " sampled together lie together); readers map ids through the recorded order",
          FeatureLayoutKind::parse,
          FeatureLayoutKind.values(),
          FeatureLayoutKind::id);

  /** Records the layout among a store's options only when it is not identity. */
  public static void pruneRecorded(Map<String, String> recorded, FeatureLayoutKind layout) {
    if (layout == FeatureLayoutKind.IDENTITY) {
      recorded.remove(FEATURE_LAYOUT.name());
    }
  }

  /** Every option of the command, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          PrepareOptions.OUTPUT,
          PrepareOptions.OVERWRITE,
          QuantizeOptions.FEATURE_ENCODING,
          QuantizeOptions.PQ_GROUP_SIZE,
          QuantizeOptions.PQ_SAMPLE_ROWS,
          QuantizeOptions.PQ_SEED,
          FEATURE_LAYOUT);
}
