package io.fanout.sample;

import io.fanout.graph.CsrGraph;
import java.util.Arrays;

/**
 * The training edges of a link-prediction store, the seeds of {@code sample --task link}: every
 * edge {@code src -> dst} of the CSR in (dst, src) order, each undirected pair once ({@code src <
 * dst}) when the store is undirected; self-loops are never seeds.
 */
public final class TrainEdges {
  private final int[] src;
  private final int[] dst;

  private TrainEdges(int[] src, int[] dst) {
    this.src = src;
    this.dst = dst;
  }

  /** The seeds of {@code graph}; {@code undirected}: the store holds both directions of a pair. */
  public static TrainEdges of(CsrGraph graph, boolean undirected) {
    return of(graph, 0, graph.numVertices(), undirected);
  }

  /**
   * The seeds whose destination is in {@code [first, end)}, in the same order: the training edges
   * of one store partition, which are a contiguous run of {@link #of(CsrGraph, boolean)}'s.
   */
  public static TrainEdges of(CsrGraph graph, int first, int end, boolean undirected) {
    return of(graph, first, end, undirected, true);
  }

  /**
   * The training edges of a typed store's link relation ({@code graph}: its in-neighbor CSR), in
   * (dst, src) order; {@code sameType}: its two endpoint types are one, so self-loops are left out
   * (between two types, {@code src == dst} is an ordinary edge).
   */
  public static TrainEdges ofRelation(CsrGraph graph, boolean sameType) {
    return of(graph, 0, graph.numVertices(), false, sameType);
  }

  /**
   * The training edges of a typed link relation whose destination is in {@code [first, end)}, in
   * the same order: those of one store partition of the destination type, a contiguous run of
   * {@link #ofRelation(CsrGraph, boolean)}'s.
   */
  public static TrainEdges ofRelation(CsrGraph graph, int first, int end, boolean sameType) {
    return of(graph, first, end, false, sameType);
  }

  private static TrainEdges of(
      CsrGraph graph, int first, int end, boolean undirected, boolean sameType) {
    long count = 0;
    for (int v = first; v < end; v++) {
      for (long p = graph.rowStart(v); p < graph.rowEnd(v); p++) {
        if (!sameType || keep(graph.neighbor(p), v, undirected)) {
          count++;
        }
      }
    }
    if (count > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(count + " training edges are more than 2^31 seeds");
    }
    int[] src = new int[(int) count];
    int[] dst = new int[(int) count];
    int i = 0;
    for (int v = first; v < end; v++) {
      for (long p = graph.rowStart(v); p < graph.rowEnd(v); p++) {
        int u = graph.neighbor(p);
        if ((!sameType || keep(u, v, undirected))
            && (i == 0 || src[i - 1] != u || dst[i - 1] != v)) {
          src[i] = u;
          dst[i] = v;
          i++;
        }
      }
    }
    return new TrainEdges(Arrays.copyOf(src, i), Arrays.copyOf(dst, i));
  }

  /**
   * {@code of(graph, undirected).size()} without building the edges: one pass over the CSR, no
   * memory that grows with it (what a driver plans by).
   */
  public static long count(CsrGraph graph, boolean undirected) {
    return count(graph, undirected, true);
  }

  /** {@code ofRelation(graph, sameType).size()}, counted as {@link #count(CsrGraph, boolean)}. */
  public static long countOfRelation(CsrGraph graph, boolean sameType) {
    return count(graph, false, sameType);
  }

  /** The edges {@link #of(CsrGraph, int, int, boolean, boolean)} keeps, over the whole graph. */
  private static long count(CsrGraph graph, boolean undirected, boolean sameType) {
    long n = 0;
    for (int v = 0; v < graph.numVertices(); v++) {
      boolean kept = false; // whether the row kept an edge yet, the last one from `last`
      int last = 0;
      for (long p = graph.rowStart(v); p < graph.rowEnd(v); p++) {
        int u = graph.neighbor(p);
        if ((!sameType || keep(u, v, undirected)) && (!kept || u != last)) {
          n++;
          kept = true;
          last = u;
        }
      }
    }
    return n;
  }

  private static boolean keep(int u, int v, boolean undirected) {
    return undirected ? u < v : u != v;
  }

  public int size() {
    return src.length;
  }

  public int src(int i) {
    return src[i];
  }

  public int dst(int i) {
    return dst[i];
  }

  /** {@code 0 .. size()-1}: the seed ids {@link SeedOrder#order(int[], long, int)} shuffles. */
  public int[] ids() {
    int[] ids = new int[src.length];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i;
    }
    return ids;
  }
}
