package io.fanout.train;

import io.fanout.nn.Block;
import io.fanout.sample.MiniBatch;
import io.fanout.store.InvalidInputException;
import java.util.Arrays;
import java.util.function.IntToLongFunction;

/**
 * The hot vertices of a run and the fixed bottom-layer block that the refresh worker computes their
 * embeddings on.
 *
 * <p>Candidates are the vertices that epoch 0's batches place among the bottom block's destinations
 * without being seeds (a seed's own row is never reused). They are ranked by how often that happens
 * ({@link HotBy#FREQUENCY}) or by in-degree ({@link HotBy#IN_DEGREE}), ties by smaller id, and the
 * top {@code round(fraction x vertices)} are hot. Each hot vertex's row of {@link #block()} holds
 * the neighbors it was sampled with at its first occurrence in epoch 0 (in batch order), and {@link
 * #features()} their normalized input rows, so a refresh needs neither the graph nor the feature
 * table. Everything is a pure function of epoch 0's batches (and, for batches that come without
 * features, of the rows a {@link RowReader} reads for them).
 */
public final class HotSet {
  private final int[] vertices;
  private final int[] slotOf;
  private final Block block;
  private final float[] features;
  private final int dim;
  private final int epochBatches;

  private HotSet(
      int[] vertices, int[] slotOf, Block block, float[] features, int dim, int epochBatches) {
    this.epochBatches = epochBatches;
    this.vertices = vertices;
    this.slotOf = slotOf;
    this.block = block;
    this.features = features;
    this.dim = dim;
  }

  /** Batches of the epoch the set was selected from (epoch 0). */
  public int epochBatches() {
    return epochBatches;
  }

  /** Number of hot vertices (rows of {@link #block()}). */
  public int size() {
    return vertices.length;
  }

  /** The hot vertex of each slot. */
  public int[] vertices() {
    return vertices;
  }

  /** The slot of each vertex id, or -1 when it is not hot; indexed by dense vertex id. */
  public int[] slotOf() {
    return slotOf;
  }

  /** One row per slot: the hot vertex's sampled in-neighbors (sources from {@link #size()} on). */
  public Block block() {
    return block;
  }

  /** Input features of the block's sources, row-major ({@code block().numSrc() x dim}). */
  public float[] features() {
    return features;
  }

  public int dim() {
    return dim;
  }

  /** Reads the input rows of vertices for batches that come without their features. */
  @FunctionalInterface
  public interface RowReader {
    /** Writes the rows of {@code ids[0 .. n)} into {@code out} ({@code n x dim}, row-major). */
    void read(int[] ids, int n, float[] out);
  }

  /**
   * Selects the hot vertices from epoch 0 of {@code data} and captures their block; the batches
   * must bring their features.
   *
   * @param numVertices vertices of the graph (dense ids are below it)
   * @param inDegree in-degree of a vertex, used when {@code reuse.hotBy()} is in-degree
   */
  public static HotSet build(
      EpochData data, HotReuse reuse, int numVertices, IntToLongFunction inDegree) {
    return build(data, reuse, numVertices, inDegree, null);
  }

  /**
   * As {@link #build(EpochData, HotReuse, int, IntToLongFunction)}; batches without features
   * (zero-copy feature access) have the block's rows read by {@code rows} once, at the end.
   */
  public static HotSet build(
      EpochData data, HotReuse reuse, int numVertices, IntToLongFunction inDegree, RowReader rows) {
    int[] count = new int[numVertices];
    int batches = 0;
    try (BatchStream s = data.open(0)) {
      TrainBatch b;
      while ((b = s.next()) != null) {
        batches++;
        MiniBatch mb = b.batch();
        int[] nodes = mb.nodes();
        for (int i = mb.numSeeds(), n = bottomDst(mb); i < n; i++) {
          count[checkId(nodes[i], numVertices, mb)]++;
        }
        s.recycle(b);
      }
    }
    int candidates = 0;
    for (int c : count) {
      candidates += c > 0 ? 1 : 0;
    }
    long[] ranked = new long[candidates];
    boolean byDegree = reuse.hotBy() == HotBy.IN_DEGREE;
    for (int v = 0, k = 0; v < numVertices; v++) {
      if (count[v] > 0) {
        long score = byDegree ? Math.min(Integer.MAX_VALUE, inDegree.applyAsLong(v)) : count[v];
        ranked[k++] = ((Integer.MAX_VALUE - score) << 32) | v;
      }
    }
    Arrays.sort(ranked);
    int hot = (int) Math.min(candidates, Math.round(reuse.fraction() * numVertices));
    int[] vertices = new int[hot];
    int[] slotOf = new int[numVertices];
    Arrays.fill(slotOf, -1);
    for (int i = 0; i < hot; i++) {
      vertices[i] = (int) ranked[i];
      slotOf[vertices[i]] = i;
    }
    return capture(data, vertices, slotOf, numVertices, rows, batches);
  }

  /** Second pass over epoch 0: every hot vertex's first sampled neighborhood and features. */
  private static HotSet capture(
      EpochData data,
      int[] vertices,
      int[] slotOf,
      int numVertices,
      RowReader reader,
      int batches) {
    int hot = vertices.length;
    int[][] nbrs = new int[hot][];
    float[] selfRows = null;
    int[] srcOf = new int[numVertices]; // neighbor vertex -> its index among the extra sources
    Arrays.fill(srcOf, -1);
    int[] extraIds = new int[16];
    float[] extraRows = new float[0];
    int extra = 0;
    int dim = 0;
    int found = 0;
    boolean read = false; // the rows come from the reader, not the batches
    try (BatchStream s = data.open(0)) {
      TrainBatch b;
      while (found < hot && (b = s.next()) != null) {
        MiniBatch mb = b.batch();
        float[] x = b.features();
        if (selfRows == null) {
          dim = b.dim();
          read = x == null;
          if (read && reader == null) {
            throw new IllegalStateException(
                "batch " + mb.batch() + " came without features and no feature rows were given");
          }
          selfRows = new float[read ? 0 : Math.multiplyExact(hot, dim)];
        }
        int[] nodes = mb.nodes();
        int[] ptr = mb.indptr(mb.layers());
        int[] idx = mb.indices(mb.layers());
        for (int i = mb.numSeeds(), n = bottomDst(mb); i < n; i++) {
          int slot = slotOf[nodes[i]];
          if (slot < 0 || nbrs[slot] != null) {
            continue;
          }
          if (!read) {
            System.arraycopy(x, i * dim, selfRows, slot * dim, dim);
          }
          int[] row = new int[ptr[i + 1] - ptr[i]];
          for (int p = ptr[i]; p < ptr[i + 1]; p++) {
            int u = nodes[idx[p]];
            if (srcOf[u] < 0) {
              if (extra == extraIds.length) {
                extraIds = Arrays.copyOf(extraIds, extra * 2);
              }
              if (!read && (long) (extra + 1) * dim > extraRows.length) {
                extraRows = Arrays.copyOf(extraRows, Math.max(dim, extraRows.length * 2));
              }
              extraIds[extra] = u;
              if (!read) {
                System.arraycopy(x, idx[p] * dim, extraRows, extra * dim, dim);
              }
              srcOf[u] = extra++;
            }
            row[p - ptr[i]] = srcOf[u];
          }
          nbrs[slot] = row;
          found++;
        }
        s.recycle(b);
      }
    }
    // Hot vertices never seen as a destination (possible when ranked by in-degree) are dropped.
    int kept = 0;
    int edges = 0;
    for (int slot = 0; slot < hot; slot++) {
      if (nbrs[slot] != null) {
        kept++;
        edges += nbrs[slot].length;
      } else {
        slotOf[vertices[slot]] = -1;
      }
    }
    int[] keptVertices = new int[kept];
    int[] indptr = new int[kept + 1];
    int[] indices = new int[edges];
    float[] feats = new float[Math.multiplyExact(kept + extra, dim)];
    int[] rowIds = read ? new int[kept + extra] : null;
    // The neighbors' rows go in the order the block's rows first read them (not the order epoch 0
    // met them), so aggregating the block streams through them instead of jumping about.
    int[] order = new int[extra];
    Arrays.fill(order, -1);
    int placed = 0;
    for (int slot = 0, k = 0; slot < hot; slot++) {
      if (nbrs[slot] == null) {
        continue;
      }
      keptVertices[k] = vertices[slot];
      slotOf[vertices[slot]] = k;
      if (read) {
        rowIds[k] = vertices[slot];
      } else {
        System.arraycopy(selfRows, slot * dim, feats, k * dim, dim);
      }
      int e = indptr[k];
      for (int u : nbrs[slot]) {
        if (order[u] < 0) {
          order[u] = placed;
          if (read) {
            rowIds[kept + placed] = extraIds[u];
          } else {
            System.arraycopy(extraRows, u * dim, feats, (kept + placed) * dim, dim);
          }
          placed++;
        }
        indices[e++] = kept + order[u];
      }
      indptr[++k] = e;
    }
    if (read) {
      reader.read(rowIds, kept + extra, feats);
    }
    Block block = new Block(indptr, indices, kept, kept + extra);
    return new HotSet(keptVertices, slotOf, block, feats, dim, batches);
  }

  /** Rows of the bottom block (hop L): the nodes reached after hop L-1. */
  static int bottomDst(MiniBatch mb) {
    return mb.layerSize(mb.layers() - 1);
  }

  private static int checkId(int v, int numVertices, MiniBatch mb) {
    if (v < 0 || v >= numVertices) {
      throw new InvalidInputException(
          "batch "
              + mb.batch()
              + " of epoch "
              + mb.epoch()
              + " has node id "
              + v
              + " but the graph has "
              + numVertices
              + " vertices (expected 0 <= id < vertices)");
    }
    return v;
  }
}
