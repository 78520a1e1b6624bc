package io.fanout.train;

import io.fanout.nn.Block;
import io.fanout.nn.ReusedRows;
import io.fanout.sample.MiniBatch;
import io.fanout.tensor.FloatTensor;

/**
 * Prunes a batch's bottom block for the hot rows whose layer-0 embeddings are reused, before its
 * features are gathered (on a loader thread) or after (on the trainer's).
 *
 * <p>The hot rows (non-seed destinations of the bottom block that the hot set maps to a slot) are
 * dropped from the block: layer 0 computes only the other destinations, which become the pruned
 * block's destinations, in order, and the first of its sources (targets stay a prefix). Then come
 * the sources that those rows still read, in the order the computed rows first read them: deeper
 * nodes, and hot rows that a computed row samples as a neighbor. Sources that only hot rows
 * reached, and hot rows that no computed row reads, are gone, so their feature rows are neither
 * gathered nor uploaded. The pruned block does not depend on what the hot rows sampled, so a batch
 * sampled with them left out ({@link io.fanout.sample.NeighborSampler.Worker#leaveOutInLastHop})
 * prunes to the same block and rows. {@link #rowOf} maps the pruned block's destinations back to
 * the full block's rows, where the upper blocks (unchanged) expect them; the model scatters layer
 * 0's output there and fills the hot rows from the cache ({@link ReusedRows}).
 *
 * <p>A pure function of the batch and the hot set, so a loader thread and the trainer prune a batch
 * alike. Reusable buffers; one instance per batch buffer, not thread-safe.
 */
final class HotPruner {
  private int[] hotRows = new int[0];
  private int[] hotSlots = new int[0];
  private int[] rowOf = new int[0];
  private int[] newIndex = new int[0];
  private int[] keptFrom = new int[0];
  private int[] keptNodes = new int[0];
  private int[] indptr = new int[0];
  private int[] indices = new int[0];
  private Block[] blocks;
  private int cached;
  private int computed;
  private int kept;

  /** The last batch's bottom block: destinations, edges and sources before pruning. */
  long bottomRows;

  long bottomEdges;
  long bottomSources;

  /** What pruning the last batch avoided: hot rows, their edges, sources no longer read. */
  long rowsAvoided;

  long edgesAvoided;
  long sourcesAvoided;

  /**
   * Prunes {@code mb} for the non-seed bottom-block destinations that {@code slotOf} (indexed by
   * vertex id) maps to a slot; returns whether there were any. When it returns false the batch is
   * used as sampled and only the counts are set.
   */
  boolean prune(MiniBatch mb, int[] slotOf) {
    Block[] all = Block.of(mb);
    Block bottom = all[0];
    int numDst = bottom.numDst();
    int numSrc = bottom.numSrc();
    int[] ptr = bottom.indptr();
    int[] idx = bottom.indices();
    bottomRows = numDst;
    bottomEdges = ptr[numDst];
    bottomSources = numSrc;
    rowsAvoided = edgesAvoided = sourcesAvoided = 0;
    cached = 0;
    blocks = null;
    if (mb.layers() < 2) {
      return false;
    }
    int[] nodes = mb.nodes();
    hotRows = grow(hotRows, numDst);
    hotSlots = grow(hotSlots, numDst);
    newIndex = grow(newIndex, numSrc);
    for (int i = mb.numSeeds(); i < numDst; i++) {
      int v = nodes[i];
      int s = v < slotOf.length ? slotOf[v] : -1;
      if (s >= 0) {
        hotRows[cached] = i;
        hotSlots[cached++] = s;
      }
    }
    if (cached == 0) {
      return false;
    }
    rowOf = grow(rowOf, numDst - cached);
    java.util.Arrays.fill(newIndex, 0, numSrc, -1);
    computed = 0;
    for (int i = 0, c = 0; i < numDst; i++) {
      if (c < cached && hotRows[c] == i) {
        c++;
      } else {
        newIndex[i] = computed;
        rowOf[computed++] = i;
      }
    }
    // The other sources in the order the computed rows first read them: a function of those rows
    // and their edges only, so a batch whose hot rows sampled nothing prunes to the same block.
    kept = computed;
    for (int k = 0; k < computed; k++) {
      int i = rowOf[k];
      for (int p = ptr[i]; p < ptr[i + 1]; p++) {
        if (newIndex[idx[p]] == -1) {
          newIndex[idx[p]] = kept++;
        }
      }
    }
    keptFrom = grow(keptFrom, kept);
    keptNodes = grow(keptNodes, kept);
    for (int j = 0; j < numSrc; j++) {
      int n = newIndex[j];
      if (n >= 0) {
        keptFrom[n] = j;
        keptNodes[n] = nodes[j];
      }
    }
    indptr = grow(indptr, computed + 1);
    indices = grow(indices, ptr[numDst]);
    int e = 0;
    indptr[0] = 0;
    for (int k = 0; k < computed; k++) {
      int i = rowOf[k];
      for (int p = ptr[i]; p < ptr[i + 1]; p++) {
        indices[e++] = newIndex[idx[p]];
      }
      indptr[k + 1] = e;
    }
    rowsAvoided = cached;
    edgesAvoided = ptr[numDst] - e;
    sourcesAvoided = numSrc - kept;
    all[0] = new Block(indptr, indices, computed, kept);
    blocks = all;
    return true;
  }

  /** Whether the last {@link #prune} found hot rows. */
  boolean active() {
    return blocks != null;
  }

  /** The pruned batch's blocks in application order (the upper ones as sampled). */
  Block[] blocks() {
    return blocks;
  }

  /** Sources of the pruned bottom block, the rows of its input features. */
  int kept() {
    return kept;
  }

  /** The vertex id of each source of the pruned bottom block ({@link #kept()} valid). */
  int[] keptNodes() {
    return keptNodes;
  }

  /**
   * Copies the rows of {@code features} (the sampled batch's, {@code nodes x dim}) that the pruned
   * bottom block reads into {@code out} (grown when short) in its source order; returns {@code
   * out}.
   */
  float[] compact(float[] features, int dim, float[] out) {
    long need = (long) kept * dim;
    float[] o = out != null && out.length >= need ? out : new float[(int) need];
    for (int k = 0; k < kept; k++) {
      System.arraycopy(features, keptFrom[k] * dim, o, k * dim, dim);
    }
    return o;
  }

  /** Hands the reused rows (full-block positions and cache slots) and the row map to {@code r}. */
  void describe(ReusedRows r, FloatTensor embeddings) {
    r.set(cached, hotRows, hotSlots, computed, rowOf, (int) bottomRows);
    r.embeddings(embeddings);
  }

  private static int[] grow(int[] a, int n) {
    return a.length >= n ? a : new int[Math.max(n, a.length + a.length / 2)];
  }
}
