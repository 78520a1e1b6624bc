package io.fanout.tensor;

/**
 * The residual of an edge attention ({@link Backend#attentionAggregate}): fixed weights of every
 * slot mixed into the softmax weights, as Simple-HGN's edge residual (Lv et al., KDD 2021). The
 * weight that slot {@code q}, head {@code k} aggregates with is {@code (1 - beta) * m * alpha[q, k]
 * + beta * weights[q, k]}, where {@code alpha} is the softmax and {@code m} its attention-dropout
 * factor. The residual weights carry no gradient (as HGB, which detaches the previous layer's
 * attention): the backward scales the softmax's gradient by {@code 1 - beta} and reads them only
 * for the gradient of {@code z}.
 *
 * @param beta the residual's share, in {@code (0, 1)}
 * @param weights {@link AttentionEdges#slots()} x heads, laid out as the weights {@code alpha}
 *     (from {@link Backend#attentionResidualWeights})
 */
public record AttentionResidual(float beta, FloatView weights) {
  public AttentionResidual {
    if (!(beta > 0f && beta < 1f)) {
      throw new IllegalArgumentException("an attention residual needs beta in (0, 1), got " + beta);
    }
    if (weights == null) {
      throw new IllegalArgumentException("an attention residual needs its weights");
    }
  }

  /** The factor of the softmax weights: {@code 1 - beta}. */
  public float keptShare() {
    return 1f - beta;
  }
}
