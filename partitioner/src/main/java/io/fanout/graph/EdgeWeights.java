package io.fanout.graph;

/**
 * The weight of each entry of a {@link CsrGraph}, by the same {@code long} positions: {@code
 * weight(p)} weighs the edge from {@code neighbor(p)}. Weights are finite and {@code >= 0} ({@code
 * prepare --weight-column} refuses others). Thread-safe for reads; no allocation per call.
 */
public interface EdgeWeights {
  /** The weight of the CSR entry at {@code position}. */
  float weight(long position);

  /**
   * Copies the weights of {@code [start, start + len)}, one CSR row or part of one, into {@code
   * dst[off ..]}: what samplers call once per row, so that their loop runs over a plain array.
   */
  default void copy(long start, float[] dst, int off, int len) {
    for (int i = 0; i < len; i++) {
      dst[off + i] = weight(start + i);
    }
  }
}
