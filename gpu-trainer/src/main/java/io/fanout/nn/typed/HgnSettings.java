package io.fanout.nn.typed;

/**
 * The attention settings of {@link TypedModelKind#HGN} (ignored by the other typed models).
 *
 * @param heads attention heads of every hidden layer (the output layer has one); a hidden layer is
 *     {@code heads x hidden} wide
 * @param slope the LeakyReLU slope of the attention scores
 * @param attnDropout dropout on the attention weights in training
 * @param relationDim width of the learned relation-type embeddings
 * @param outputScale the L2-normalised outputs are multiplied by this before the softmax (1: as
 *     HGB, no temperature)
 * @param inputWidth width of the per-type input projections, the first layer's input; 0: the
 *     model's {@code hidden} (one head's width, as HGB)
 * @param attnResidual Simple-HGN's edge residual {@code beta}: a hidden layer after the first mixes
 *     the previous layer's attention weights into its own, {@code (1 - beta) softmax + beta
 *     alpha_prev} (0: none)
 */
public record HgnSettings(
    int heads,
    float slope,
    float attnDropout,
    int relationDim,
    float outputScale,
    int inputWidth,
    float attnResidual) {
  /**
   * HGB's Simple-HGN settings: 8 heads, slope 0.05, relation embeddings of 64; no edge residual
   * (HGB's 0.05 scored below none in cross-validation on hgb_acm over 30 epochs).
   */
  public static final HgnSettings DEFAULT = new HgnSettings(8, 0.05f, 0.5f, 64);

  /** Settings with {@code outputScale} 1 (HGB's) and input projections of {@code hidden}. */
  public HgnSettings(int heads, float slope, float attnDropout, int relationDim) {
    this(heads, slope, attnDropout, relationDim, 1f);
  }

  /** Settings with input projections of {@code hidden}. */
  public HgnSettings(
      int heads, float slope, float attnDropout, int relationDim, float outputScale) {
    this(heads, slope, attnDropout, relationDim, outputScale, 0);
  }

  /** Settings without the edge residual. */
  public HgnSettings(
      int heads,
      float slope,
      float attnDropout,
      int relationDim,
      float outputScale,
      int inputWidth) {
    this(heads, slope, attnDropout, relationDim, outputScale, inputWidth, 0f);
  }

  /** These settings with input projections {@code width} wide (0: {@code hidden}). */
  public HgnSettings withInputWidth(int width) {
    return new HgnSettings(
        heads, slope, attnDropout, relationDim, outputScale, width, attnResidual);
  }

  /** These settings with the edge residual {@code beta} (0: none). */
  public HgnSettings withAttnResidual(float beta) {
    return new HgnSettings(heads, slope, attnDropout, relationDim, outputScale, inputWidth, beta);
  }

  public HgnSettings {
    if (!(attnResidual >= 0f && attnResidual < 1f)) {
      throw new IllegalArgumentException(
          "hgn needs an attention residual in [0, 1), got " + attnResidual);
    }
    if (inputWidth < 0) {
      throw new IllegalArgumentException("hgn needs an input width >= 0, got " + inputWidth);
    }
    if (!(outputScale > 0f)) {
      throw new IllegalArgumentException("hgn needs an output scale > 0, got " + outputScale);
    }
    if (heads < 1 || relationDim < 1) {
      throw new IllegalArgumentException(
          "hgn needs heads >= 1 and relationDim >= 1, got " + heads + ", " + relationDim);
    }
    if (!(slope >= 0f && slope < 1f) || !(attnDropout >= 0f && attnDropout < 1f)) {
      throw new IllegalArgumentException(
          "hgn needs slope and attention dropout in [0, 1), got " + slope + ", " + attnDropout);
    }
  }
}
