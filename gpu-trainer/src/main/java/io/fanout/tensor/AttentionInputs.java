package io.fanout.tensor;

/**
 * What an edge attention ({@link Backend#attentionAggregate}) reads beside its edges: the per-head
 * scores of the destination rows ({@code rows x heads}), of the source rows ({@code heads} wide, a
 * row per source), of the relations ({@code relationCount x heads}; null, and ignored, without
 * relations) and the source rows {@code z} ({@code heads * headDim} wide, a row per source). The
 * backward's gradients of these inputs have the same layout and take the same record.
 */
public record AttentionInputs(
    FloatView dstScores, FloatView srcScores, FloatView relScores, FloatView z) {

  /** The four tensors from their first elements; {@code relScores} may be null. */
  public static AttentionInputs of(
      FloatTensor dstScores, FloatTensor srcScores, FloatTensor relScores, FloatTensor z) {
    return new AttentionInputs(
        FloatView.of(dstScores),
        FloatView.of(srcScores),
        relScores == null ? null : FloatView.of(relScores),
        FloatView.of(z));
  }
}
