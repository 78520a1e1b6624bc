package io.fanout.train;

import io.fanout.tensor.Backend;
import java.util.Locale;

/**
 * Resolves {@code --feature-access} for one run: an explicit mode stays as asked; {@link
 * FeatureAccessMode#AUTO} becomes, on a backend with its own device memory,
 *
 * <ol>
 *   <li>{@link FeatureAccessMode#GATHER} when the rows cannot be read in place (shards with inline
 *       features, a feature norm with a feature cache);
 *   <li>{@link FeatureAccessMode#ZERO_COPY} with a feature cache (its pages are read in place);
 *   <li>{@link FeatureAccessMode#DEVICE} when the encoded rows take at most {@link #DEVICE_SHARE}
 *       of the device's free memory;
 *   <li>else {@link FeatureAccessMode#ZERO_COPY};
 * </ol>
 *
 * and {@link FeatureAccessMode#GATHER} on a backend that computes in host memory, as before auto
 * existed.
 */
public final class FeatureAccessChoice {
  /**
   * The share of the device's free memory that resident feature rows may take under auto; the rest
   * holds the model, the optimizer state, a batch's activations and the memory pool's cache.
   */
  public static final double DEVICE_SHARE = 0.5;

  /** The mode a run uses, and why (for the run's log). */
  public record Choice(FeatureAccessMode mode, String why) {}

  private FeatureAccessChoice() {}

  /**
   * The mode for a run.
   *
   * @param requested the asked mode; anything but {@link FeatureAccessMode#AUTO} is returned as is
   * @param backend the run's backend ({@link Backend#freeDeviceBytes})
   * @param featureBytes the bytes of the store's encoded feature rows
   * @param inPlaceRefusal why the rows cannot be read in place for this run, or null when they can
   * @param cache whether a feature cache was asked for
   */
  public static Choice resolve(
      FeatureAccessMode requested,
      Backend backend,
      long featureBytes,
      String inPlaceRefusal,
      boolean cache) {
    if (requested != FeatureAccessMode.AUTO) {
      return new Choice(requested, "asked for");
    }
    long free = backend.freeDeviceBytes();
    if (free < 0) {
      return new Choice(
          FeatureAccessMode.GATHER, backend.name() + " computes in host memory: rows are gathered");
    }
    if (inPlaceRefusal != null) {
      return new Choice(FeatureAccessMode.GATHER, inPlaceRefusal);
    }
    if (cache) {
      return new Choice(
          FeatureAccessMode.ZERO_COPY, "the feature cache's pages are read in place from the host");
    }
    String sizes =
        String.format(
            Locale.ROOT,
            "%.2f GiB of encoded rows, %.2f GiB of device memory free (share %.2f)",
            featureBytes / (double) (1L << 30),
            free / (double) (1L << 30),
            DEVICE_SHARE);
    if (featureBytes <= DEVICE_SHARE * free) {
      return new Choice(FeatureAccessMode.DEVICE, "the rows fit in device memory: " + sizes);
    }
    return new Choice(
        FeatureAccessMode.ZERO_COPY,
        "the rows do not fit in device memory (" + sizes + "): read in place from the host");
  }
}
