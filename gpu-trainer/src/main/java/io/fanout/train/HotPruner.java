package io.fanout.train;

import io.fanout.nn.Block;
import io.fanout.nn.ReusedRows;
import io.fanout.sample.MiniBatch;

/**
 * Prunes a batch's bottom block for the hot rows whose embeddings are reused: their in-edges are
 * dropped, the sources only they reached are dropped with their feature rows, and the remaining
 * sources are renumbered in order (destinations keep their positions, so the upper blocks are
 * unchanged). The feature array is compacted in place. Reusable buffers; not thread-safe.
 */
final class HotPruner {
  private int[] indptr = new int[0];
  private int[] indices = new int[0];
  private int[] newIndex = new int[0];
  private int[] rows = new int[0];
  private int[] slots = new int[0];

  /** What the last {@link #prune} avoided, summed over calls. */
  long rowsAvoided;

  long edgesAvoided;
  long featureRowsAvoided;
  long bottomRows;
  long bottomEdges;
  long bottomFeatureRows;

  /**
   * The blocks of {@code mb} (as {@link Block#of}) with the bottom block pruned for the non-seed
   * destinations that {@code slotOf} maps to a slot, or the unpruned blocks when there are none;
   * {@code reused} receives the pruned rows and their slots. Compacts {@code features} ({@code
   * nodes x dim}) to the kept sources.
   */
  Block[] prune(MiniBatch mb, float[] features, int dim, int[] slotOf, ReusedRows reused) {
    Block[] blocks = Block.of(mb);
    int layers = mb.layers();
    Block bottom = blocks[0];
    int numDst = bottom.numDst();
    int numSrc = bottom.numSrc();
    int[] ptr = bottom.indptr();
    int[] idx = bottom.indices();
    bottomRows += numDst;
    bottomEdges += ptr[numDst];
    bottomFeatureRows += numSrc;
    reused.clear();
    if (layers < 2) {
      return blocks;
    }
    int[] nodes = mb.nodes();
    rows = grow(rows, numDst);
    slots = grow(slots, numDst);
    int cached = 0;
    for (int i = mb.numSeeds(); i < numDst; i++) {
      int v = nodes[i];
      int s = v < slotOf.length ? slotOf[v] : -1;
      if (s >= 0) {
        rows[cached] = i;
        slots[cached++] = s;
      }
    }
    if (cached == 0) {
      return blocks;
    }
    newIndex = grow(newIndex, numSrc);
    for (int j = numDst; j < numSrc; j++) {
      newIndex[j] = -1;
    }
    for (int i = 0, c = 0; i < numDst; i++) {
      if (c < cached && rows[c] == i) {
        c++;
        continue;
      }
      for (int p = ptr[i]; p < ptr[i + 1]; p++) {
        newIndex[idx[p]] = 0; // marks the source as used
      }
    }
    int kept = numDst;
    for (int j = numDst; j < numSrc; j++) {
      if (newIndex[j] == 0) {
        newIndex[j] = kept;
        if (kept != j) {
          System.arraycopy(features, j * dim, features, kept * dim, dim);
        }
        kept++;
      }
    }
    indptr = grow(indptr, numDst + 1);
    indices = grow(indices, ptr[numDst]);
    int e = 0;
    indptr[0] = 0;
    for (int i = 0, c = 0; i < numDst; i++) {
      if (c < cached && rows[c] == i) {
        c++;
      } else {
        for (int p = ptr[i]; p < ptr[i + 1]; p++) {
          int j = idx[p];
          indices[e++] = j < numDst ? j : newIndex[j];
        }
      }
      indptr[i + 1] = e;
    }
    rowsAvoided += cached;
    edgesAvoided += ptr[numDst] - e;
    featureRowsAvoided += numSrc - kept;
    reused.set(cached, rows, slots);
    blocks[0] = new Block(indptr, indices, numDst, kept);
    return blocks;
  }

  private static int[] grow(int[] a, int n) {
    return a.length >= n ? a : new int[Math.max(n, a.length + a.length / 2)];
  }
}
