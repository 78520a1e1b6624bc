package io.fanout.nn;

import io.fanout.store.EnumSpellings;

/**
 * Whether a gat model adds the residual {@code x_i W_res} to every layer ({@code train
 * --gat-residual}): {@code on}, {@code off}, or {@code auto}, which the trainer resolves from the
 * training split before it builds the model ({@link #resolve}): on where the split has at least
 * {@link #AUTO_SEEDS_PER_CLASS} labeled seeds per class. The residual's weight is as large as the
 * layer's own; a few labels per class overfit it, many fit what the attention alone underfits.
 */
public enum GatResidual {
  AUTO("auto"),
  ON("on"),
  OFF("off");

  /** Labeled training seeds per class from which {@code auto} turns the residual on. */
  public static final long AUTO_SEEDS_PER_CLASS = 100;

  private final String id;

  GatResidual(String id) {
    this.id = id;
  }

  /** The spelling of this value in options, checkpoints and messages. */
  public String id() {
    return id;
  }

  /** {@code on} or {@code off}: {@code auto} resolved for {@code seeds} training seeds. */
  public GatResidual resolve(long seeds, int classes) {
    if (this != AUTO) {
      return this;
    }
    return seeds >= AUTO_SEEDS_PER_CLASS * Math.max(1, classes) ? ON : OFF;
  }

  /**
   * The value spelled {@code raw}, compared case-insensitively after trimming.
   *
   * @throws IllegalArgumentException "expected one of a|b|c"
   */
  public static GatResidual parse(String raw) {
    return EnumSpellings.parse(raw, values(), GatResidual::id);
  }
}
