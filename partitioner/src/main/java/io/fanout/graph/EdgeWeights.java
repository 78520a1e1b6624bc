package io.fanout.graph;

/**
 * The weight of each entry of a {@link CsrGraph}, by the same {@code long} positions: {@code
 * weight(p)} weighs the edge from {@code neighbor(p)}. Weights are finite and {@code >= 0} ({@code
 * prepare --weight-column} refuses others). Thread-safe for reads; no allocation per call.
 */
public interface EdgeWeights {
  /** The weight of the CSR entry at {@code position}. */
  float weight(long position);
}
