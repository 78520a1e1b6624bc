package io.fanout.graph;

/**
 * In-neighbor adjacency over dense vertex ids {@code 0 .. numVertices()-1}: the neighbors of {@code
 * v} are {@code neighbor(p)} for {@code rowStart(v) <= p < rowEnd(v)}, sorted ascending. Positions
 * are {@code long} so a graph may hold more than 2^31 edges.
 *
 * <p>Implementations are thread-safe for reads and do not allocate per call; the sampler's hot loop
 * calls these methods once per visited vertex and once per sampled edge.
 */
public interface CsrGraph {
  int numVertices();

  long numEdges();

  /** Position of the first in-neighbor of {@code v}. */
  long rowStart(int v);

  /** One past the position of the last in-neighbor of {@code v}. */
  long rowEnd(int v);

  /** The dense id of the neighbor at {@code position}. */
  int neighbor(long position);

  /** {@code rowEnd(v) - rowStart(v)}. */
  default long degree(int v) {
    return rowEnd(v) - rowStart(v);
  }
}
