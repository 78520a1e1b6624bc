package io.fanout.nn;

import io.fanout.sample.MiniBatch;

/**
 * One message-flow block as a layer sees it: {@code numDst} destination rows whose in-neighbors are
 * local indices into {@code [0, numSrc)}; destinations are the first {@code numDst} sources.
 */
public record Block(int[] indptr, int[] indices, int numDst, int numSrc) {

  /** The blocks of a mini-batch in application order: block {@code L} first, block 1 last. */
  public static Block[] of(MiniBatch b) {
    int layers = b.layers();
    Block[] out = new Block[layers];
    for (int l = 0; l < layers; l++) {
      int h = layers - l;
      out[l] = new Block(b.indptr(h), b.indices(h), b.layerSize(h - 1), b.layerSize(h));
    }
    return out;
  }
}
