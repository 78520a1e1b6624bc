package io.fanout.nn;

/**
 * The attention shape of a {@link ModelKind#GAT} model: the heads of every hidden layer (their
 * outputs concatenated, so they split the hidden width; the output layer has one head), the
 * negative slope of the LeakyReLU on the attention scores, the dropout on the attention weights in
 * training, and whether every layer adds a residual {@code x_i W_res} (a linear projection of the
 * node's own input, beside the attention over its neighbors).
 */
public record AttentionConfig(int heads, float slope, float dropout, boolean residual) {
  /** The documented defaults: 8 heads, slope 0.2, attention dropout 0.6 (the GAT paper's). */
  public static final AttentionConfig DEFAULT = new AttentionConfig(8, 0.2f, 0.6f, false);

  /** A shape without the residual (every model written before the residual existed). */
  public AttentionConfig(int heads, float slope, float dropout) {
    this(heads, slope, dropout, false);
  }

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
  }

  /** This shape with the residual on or off. */
  public AttentionConfig withResidual(boolean r) {
    return new AttentionConfig(heads, slope, dropout, r);
  }
}
