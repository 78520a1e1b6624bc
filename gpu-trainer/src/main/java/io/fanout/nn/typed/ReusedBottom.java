package io.fanout.nn.typed;

import io.fanout.sample.TypedMiniBatch;

/**
 * A typed batch's bottom hop pruned for the hot rows whose layer-0 outputs come from a cache
 * ({@code train --reuse-hot} on a typed store): what {@link TypedModel#forward(TypedMiniBatch,
 * float[][], boolean, long, ReusedBottom, io.fanout.tensor.FloatTensor)} runs layer 0 on instead of
 * the batch's own bottom hop.
 *
 * <p>Rows are counted in the level matrices of {@link TypedBatchTensors}: every type's rows in one
 * matrix, type by type.
 *
 * @param block the pruned bottom hop as a one-hop batch: per type its computed rows of the batch's
 *     level {@code L-1} (the destinations, a prefix of the type's nodes), then the sources they
 *     read, whose input rows are the step's features
 * @param fullRow per destination row of {@code block} (level 0 of it, types in order), its row in
 *     the batch's level {@code L-1} matrix
 * @param hotRow the rows of the batch's level {@code L-1} matrix whose layer-0 output comes from
 *     the cache
 * @param hotSlot per hot row, its row in the cache
 */
public record ReusedBottom(TypedMiniBatch block, int[] fullRow, int[] hotRow, int[] hotSlot) {
  public ReusedBottom {
    if (block.layers() != 1) {
      throw new IllegalArgumentException("a pruned bottom hop is a one-hop batch");
    }
    int computed = 0;
    for (int t = 0; t < block.numTypes(); t++) {
      computed += block.layerSize(t, 0);
    }
    if (fullRow.length != computed || hotRow.length != hotSlot.length) {
      throw new IllegalArgumentException("the pruned rows disagree with the pruned block");
    }
  }

  /** Rows of the batch's level {@code L-1}: the computed ones and the hot ones. */
  public int rows() {
    return fullRow.length + hotRow.length;
  }
}
