package io.fanout.train;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.VertexTable;
import io.fanout.sample.MiniBatch;
import io.fanout.tensor.CounterRng;
import java.util.Arrays;

/**
 * Uniform neighbor sampling without replacement, producing {@link MiniBatch}es on the fly (for
 * sampled inference and in-process training). A vertex keeps all in-neighbors when its degree is at
 * most the hop's fanout; a fanout {@code <= 0} keeps all. Choices are a pure function of (seed,
 * epoch, batch, node, hop, position).
 *
 * <p>Not thread-safe (it reuses a per-vertex scratch array); use one per thread.
 */
public final class NeighborSampler {
  private final CsrGraph g;
  private final VertexTable vertices;
  private final int[] fanouts;
  private final long seed;
  private final int[] local;
  private int[] nodes = new int[1024];
  private int[] picked = new int[64];

  /**
   * @param fanouts {@code fanouts[h-1]} neighbors per node at hop {@code h}
   * @param vertices labels of the seeds (null: labels are -1)
   */
  public NeighborSampler(CsrGraph g, VertexTable vertices, int[] fanouts, long seed) {
    this.g = g;
    this.vertices = vertices;
    this.fanouts = fanouts.clone();
    this.seed = seed;
    this.local = new int[g.numVertices()];
    Arrays.fill(local, -1);
  }

  /** Samples the blocks of seeds {@code seeds[from .. from+count)}. */
  public MiniBatch sample(int[] seeds, int from, int count, int epoch, int batch) {
    int layers = fanouts.length;
    int[] sizes = new int[layers + 1];
    int[][] indptr = new int[layers][];
    int[][] indices = new int[layers][];
    for (int i = 0; i < count; i++) {
      localOf(seeds[from + i]);
    }
    if (nodesSize != count) {
      reset(nodesSize);
      throw new IllegalArgumentException("seeds of batch " + batch + " repeat a vertex");
    }
    sizes[0] = count;
    long key = CounterRng.key(seed, 0x5A, epoch, batch);
    for (int h = 1; h <= layers; h++) {
      int dst = sizes[h - 1];
      int fan = fanouts[h - 1];
      int[] ptr = new int[dst + 1];
      int[] idx = new int[16];
      int e = 0;
      for (int i = 0; i < dst; i++) {
        int v = nodes[i];
        long s = g.rowStart(v);
        int deg = (int) (g.rowEnd(v) - s);
        int k = fan <= 0 || deg <= fan ? deg : fan;
        idx = grow(idx, e + k);
        if (k == deg) {
          for (int q = 0; q < deg; q++) {
            idx[e++] = localOf(g.neighbor(s + q));
          }
        } else {
          long nk = CounterRng.key(key, v, h, 0);
          picked = grow(picked, k);
          int got = 0;
          for (long attempt = 0; got < k; attempt++) {
            int r = (int) (CounterRng.uniform(nk, attempt) * deg);
            boolean dup = false;
            for (int t = 0; t < got; t++) {
              if (picked[t] == r) {
                dup = true;
                break;
              }
            }
            if (!dup) {
              picked[got++] = r;
            }
          }
          Arrays.sort(picked, 0, k);
          for (int t = 0; t < k; t++) {
            idx[e++] = localOf(g.neighbor(s + picked[t]));
          }
        }
        ptr[i + 1] = e;
      }
      indptr[h - 1] = ptr;
      indices[h - 1] = Arrays.copyOf(idx, e);
      sizes[h] = nodesSize;
    }
    int total = nodesSize;
    int[] out = Arrays.copyOf(nodes, total);
    reset(total);
    int[] labels = new int[count];
    for (int i = 0; i < count; i++) {
      labels[i] = vertices == null ? -1 : vertices.label(out[i]);
    }
    return new MiniBatch(epoch, batch, out, sizes, indptr, indices, labels);
  }

  private int nodesSize;

  private int localOf(int v) {
    int l = local[v];
    if (l < 0) {
      l = nodesSize;
      local[v] = l;
      nodes = grow(nodes, l + 1);
      nodes[l] = v;
      nodesSize = l + 1;
    }
    return l;
  }

  private void reset(int n) {
    for (int i = 0; i < n; i++) {
      local[nodes[i]] = -1;
    }
    nodesSize = 0;
  }

  private static int[] grow(int[] a, int need) {
    return a.length >= need ? a : Arrays.copyOf(a, Math.max(need, a.length * 2));
  }
}
