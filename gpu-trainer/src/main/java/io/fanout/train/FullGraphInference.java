package io.fanout.train;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.FeatureTable;
import io.fanout.nn.Block;
import io.fanout.nn.GnnModel;
import io.fanout.store.Cancellation;
import java.util.Arrays;

/**
 * Full-neighbor inference, layer-wise: layer {@code l}'s outputs are computed for every vertex, in
 * chunks of destination vertices with all their in-neighbors, before layer {@code l+1} starts. This
 * costs one pass over the edges per layer instead of the exponential neighborhoods of per-seed
 * inference. Layer 0 gathers (and normalizes) features from the table per chunk; later layers read
 * the previous layer's outputs, held for all vertices ({@code vertices x hidden} floats).
 */
public final class FullGraphInference {
  private FullGraphInference() {}

  /**
   * What one layer-wise pass computes for every vertex.
   *
   * @param logits {@code vertices x classes}, row-major
   * @param lastHidden the last hidden layer's outputs (after its activation; the output layer's
   *     input), {@code vertices x hidden}, row-major; null for a 1-layer model, which has none
   */
  public record Outputs(float[] logits, float[] lastHidden) {}

  /** Logits of every vertex, {@code vertices x classes}, row-major. */
  public static float[] logits(GnnModel model, CsrGraph g, FeatureTable table, int chunk) {
    return outputs(model, g, table, chunk).logits();
  }

  /**
   * Logits and last hidden layer of every vertex, in one pass: the hidden layer is the previous
   * layer's output that the pass holds anyway.
   */
  public static Outputs outputs(GnnModel model, CsrGraph g, FeatureTable table, int chunk) {
    int nv = g.numVertices();
    int[] local = new int[nv];
    Arrays.fill(local, -1);
    float[] prev = null;
    float[] lastHidden = null;
    int prevDim = model.config().inDim();
    for (int l = 0; l < model.numLayers(); l++) {
      lastHidden = prev;
      int out = model.layerOutDim(l);
      long total = (long) nv * out;
      if (total > Integer.MAX_VALUE - 8) {
        throw new IllegalArgumentException(
            "full-neighbor inference holds " + total + " floats per layer, over 2^31; use sampled");
      }
      float[] next = new float[(int) total];
      int[] srcNodes = new int[Math.max(16, chunk * 2)];
      int[] idx = new int[16];
      float[] x = new float[0];
      for (int a = 0; a < nv; a += chunk) {
        Cancellation.check("full-neighbor inference");
        int b = Math.min(nv, a + chunk);
        int rows = b - a;
        int n = 0;
        for (int v = a; v < b; v++) {
          local[v] = n;
          srcNodes = grow(srcNodes, n + 1);
          srcNodes[n++] = v;
        }
        int[] indptr = new int[rows + 1];
        int e = 0;
        for (int v = a; v < b; v++) {
          long s = g.rowStart(v);
          long end = g.rowEnd(v);
          if (e + (end - s) > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a chunk of " + chunk + " rows has too many edges");
          }
          idx = grow(idx, (int) (e + (end - s)));
          for (long p = s; p < end; p++) {
            int u = g.neighbor(p);
            int lu = local[u];
            if (lu < 0) {
              lu = n;
              local[u] = lu;
              srcNodes = grow(srcNodes, n + 1);
              srcNodes[n++] = u;
            }
            idx[e++] = lu;
          }
          indptr[v - a + 1] = e;
        }
        long need = (long) n * prevDim;
        if (x.length < need) {
          x = new float[(int) Math.min(Integer.MAX_VALUE - 8, Math.max(need, x.length * 3L / 2))];
        }
        if (l == 0) {
          table.gather(srcNodes, 0, n, x, 0);
          FeatureNorm.apply(model.config().featureNorm(), x, n, prevDim);
        } else {
          for (int i = 0; i < n; i++) {
            System.arraycopy(prev, srcNodes[i] * prevDim, x, i * prevDim, prevDim);
          }
        }
        float[] y = model.forwardLayer(l, new Block(indptr, Arrays.copyOf(idx, e), rows, n), x);
        System.arraycopy(y, 0, next, a * out, rows * out);
        for (int i = 0; i < n; i++) {
          local[srcNodes[i]] = -1;
        }
      }
      prev = next;
      prevDim = out;
    }
    return new Outputs(prev, lastHidden);
  }

  private static int[] grow(int[] a, int need) {
    return a.length >= need ? a : Arrays.copyOf(a, Math.max(need, a.length * 2));
  }
}
