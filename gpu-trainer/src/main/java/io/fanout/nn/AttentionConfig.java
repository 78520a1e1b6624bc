package io.fanout.nn;

/**
 * The attention shape of a {@link ModelKind#GAT} model: the heads of every hidden layer (their
 * outputs concatenated, so they split the hidden width), the negative slope of the LeakyReLU on the
 * attention scores, the dropout on the attention weights in training, the heads of the output layer
 * (each of the full output width, averaged), and whether every layer adds a residual {@code x_i
 * W_res} (a linear projection of the node's own input, beside the attention over its neighbors).
 */
public record AttentionConfig(
    int heads, float slope, float dropout, int outputHeads, GatResidual residual) {
  /**
   * The documented defaults: 8 heads, slope 0.2, attention dropout 0.6 (the GAT paper's), 8
   * averaged output heads, the residual {@code auto} (resolved by the trainer, {@link #resolve}).
   */
  public static final AttentionConfig DEFAULT =
      new AttentionConfig(8, 0.2f, 0.6f, 8, GatResidual.AUTO);

  public AttentionConfig {
    if (heads <= 0) {
      throw new IllegalArgumentException("attention heads must be at least 1, got " + heads);
    }
    if (!(slope >= 0f && slope < 1f)) {
      throw new IllegalArgumentException("attention slope must be in [0, 1), got " + slope);
    }
    if (!(dropout >= 0f && dropout < 1f)) {
      throw new IllegalArgumentException("attention dropout must be in [0, 1), got " + dropout);
    }
    java.util.Objects.requireNonNull(residual, "residual");
    if (outputHeads <= 0) {
      throw new IllegalArgumentException("output heads must be at least 1, got " + outputHeads);
    }
  }

  /** This shape with its residual resolved ({@link GatResidual#resolve}) for the training seeds. */
  public AttentionConfig resolve(long seeds, int classes) {
    return new AttentionConfig(
        heads, slope, dropout, outputHeads, residual.resolve(seeds, classes));
  }

  /** Whether every layer adds the residual ({@code auto} resolved or not: not yet on). */
  public boolean residualOn() {
    return residual == GatResidual.ON;
  }
}
