package io.fanout.bench.train;

import io.fanout.bench.sample.VertexTables;
import io.fanout.graph.ArrayCsrGraph;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.VertexTable;
import io.fanout.nn.ActivationKind;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.ModelConfig;
import io.fanout.nn.ModelKind;
import io.fanout.store.FeatureParams;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CounterRng;
import java.util.Arrays;

/**
 * The benchmarks' generated graph: degrees uniform in {@code 1 .. 2 x mean - 1}, in-neighbors
 * skewed towards low ids (popular vertices; {@link #DEFAULT_SKEW}), uniform features in {@code
 * [-0.5, 0.5)}, 47 classes, every vertex in the training split; deterministic (counter-based random
 * numbers).
 *
 * @param features row-major {@code vertices x dim}, or null where the rows are not held ({@link
 *     #feature} computes each value)
 */
record BenchGraph(ArrayCsrGraph csr, float[] features, int dim, VertexTable vertices, int classes) {
  static final int CLASSES = 47;

  /** The in-neighbor skew of {@link #generate(int, long, int, boolean, double)} by default. */
  static final double DEFAULT_SKEW = 2;

  /** The benchmarks' GraphSAGE over this graph: ReLU, no feature normalization. */
  ModelConfig sageConfig(int hidden, int layers, float dropout) {
    return sageConfig(dim, classes, hidden, layers, dropout);
  }

  /**
   * {@link #sageConfig(int, int, float)} for a graph that is not held (a store written earlier), of
   * {@code dim} features and {@code classes} classes.
   */
  static ModelConfig sageConfig(int dim, int classes, int hidden, int layers, float dropout) {
    return new ModelConfig(
        ModelKind.SAGE,
        dim,
        hidden,
        classes,
        layers,
        dropout,
        ActivationKind.RELU,
        FeatureNormKind.NONE);
  }

  /** The features as a table gathered by row copies. */
  FeatureTable featureTable() {
    int n = csr.numVertices();
    return new FeatureTable() {
      @Override
      public int numVertices() {
        return n;
      }

      @Override
      public int dim() {
        return dim;
      }

      @Override
      public void gather(int[] ids, int from, int count, float[] out, int off) {
        for (int i = 0; i < count; i++) {
          System.arraycopy(features, ids[from + i] * dim, out, off + i * dim, dim);
        }
      }
    };
  }

  /**
   * {@code min(count, vertices)} seeds spread evenly over the ids, so hubs and leaves both occur.
   */
  int[] spreadSeeds(int count) {
    int n = csr.numVertices();
    int[] seeds = new int[Math.min(n, count)];
    for (int i = 0; i < seeds.length; i++) {
      seeds[i] = (int) ((long) i * n / seeds.length);
    }
    return seeds;
  }

  static BenchGraph generate(int n, long edges, int dim) {
    return generate(n, edges, dim, true);
  }

  /** The most elements one Java array holds. */
  static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

  /** Whether {@code n x dim} feature values fit one {@code float[]} ({@link #features}). */
  static boolean rowsFitOneArray(int n, int dim) {
    return (long) n * dim <= MAX_ARRAY;
  }

  /** Value {@code c} of vertex {@code v}'s row: what {@link #features} holds there. */
  static float feature(int v, int c, int dim) {
    return CounterRng.uniform(13, (long) v * dim + c) - 0.5f;
  }

  /**
   * The parameters of this graph's rows stored with {@code encoding}: {@code f16} as they are,
   * {@code int8} and {@code int4} per-column affine over the values' minima and maxima (one pass
   * over {@link #feature}, so it needs no materialized rows).
   */
  FeatureParams encodedParams(int encoding) {
    if (encoding == StoreLayout.ENCODING_F16) {
      return FeatureParams.plain(encoding, dim);
    }
    if (encoding != StoreLayout.ENCODING_INT8 && encoding != StoreLayout.ENCODING_INT4) {
      throw new IllegalArgumentException(
          "generated rows are encoded f16, int8 or int4, not "
              + StoreLayout.encodingName(encoding));
    }
    int n = csr.numVertices();
    float[] min = new float[dim];
    float[] max = new float[dim];
    Arrays.fill(min, Float.POSITIVE_INFINITY);
    Arrays.fill(max, Float.NEGATIVE_INFINITY);
    for (int v = 0; v < n; v++) {
      for (int c = 0; c < dim; c++) {
        float x = feature(v, c, dim);
        min[c] = Math.min(min[c], x);
        max[c] = Math.max(max[c], x);
      }
    }
    return FeatureParams.affine(encoding, min, max);
  }

  /**
   * The graph; with {@code withFeatures} false its rows are not materialized ({@link #features} is
   * null) and {@link #feature} gives them.
   */
  static BenchGraph generate(int n, long edges, int dim, boolean withFeatures) {
    return generate(n, edges, dim, withFeatures, DEFAULT_SKEW);
  }

  /**
   * As above, with in-neighbor ids drawn as {@code floor(n x r^skew)} for uniform {@code r}: the
   * {@code f} most-named vertices then hold about {@code f^(1 / skew)} of the neighbor entries
   * (with the default 2, the 5% most named hold 22%); 1 is uniform.
   */
  static BenchGraph generate(int n, long edges, int dim, boolean withFeatures, double skew) {
    return generate(n, edges, dim, withFeatures, skew, 0, 1);
  }

  /**
   * As above, with a share {@code locality} of each vertex's in-neighbors drawn uniformly from its
   * own community instead: communities of {@code communitySize} vertices, scattered over the ids by
   * a fixed bijection ({@link Communities}), so that rows at their ids lie apart and only a layout
   * computed from the graph brings a community's rows together. {@code locality} 0 is the graph
   * above.
   */
  static BenchGraph generate(
      int n,
      long edges,
      int dim,
      boolean withFeatures,
      double skew,
      double locality,
      int communitySize) {
    if (!(locality >= 0 && locality <= 1) || communitySize < 1) {
      throw new IllegalArgumentException(
          "locality " + locality + " (expected in [0, 1]), community size " + communitySize);
    }
    Communities communities = new Communities(n, communitySize);
    if (!(skew >= 1 && skew <= 64)) {
      throw new IllegalArgumentException("skew " + skew + ", expected in [1, 64]");
    }
    long[] indptr = new long[n + 1];
    int avg = (int) Math.max(1, edges / n);
    for (int v = 0; v < n; v++) {
      int deg = 1 + (int) (CounterRng.uniform(11, v) * (2 * avg - 1));
      indptr[v + 1] = indptr[v] + deg;
    }
    if (indptr[n] > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "the generated graph keeps edges in one int[]; use < 2^31");
    }
    int[] indices = new int[(int) indptr[n]];
    for (int v = 0; v < n; v++) {
      int a = (int) indptr[v];
      int b = (int) indptr[v + 1];
      for (int p = a; p < b; p++) {
        float r = CounterRng.uniform(12, p);
        if (locality > 0 && CounterRng.uniform(15, p) < locality) {
          indices[p] = communities.member(v, r);
          continue;
        }
        // skewed: low ids are popular
        indices[p] =
            skew == DEFAULT_SKEW
                ? (int) (r * r * n)
                : Math.min(n - 1, (int) ((float) Math.pow(r, skew) * n));
      }
      Arrays.sort(indices, a, b);
    }
    if (withFeatures && !rowsFitOneArray(n, dim)) {
      throw new IllegalArgumentException(
          n + " x " + dim + " feature values are over one float[]; generate without features");
    }
    float[] feats = withFeatures ? new float[n * dim] : null;
    for (int i = 0; withFeatures && i < feats.length; i++) {
      feats[i] = CounterRng.uniform(13, i) - 0.5f;
    }
    VertexTable vt = VertexTables.of(n, v -> (int) (CounterRng.uniform(14, v) * CLASSES), v -> 1);
    return new BenchGraph(new ArrayCsrGraph(indptr, indices), feats, dim, vt, CLASSES);
  }

  /**
   * Communities of {@code size} vertices hidden in the ids: vertex {@code v} sits at rank {@code (a
   * v + c) mod n} for a fixed {@code a} coprime to {@code n}, and ranks {@code [k size, (k + 1)
   * size)} form community {@code k}.
   */
  static final class Communities {
    private final long n;
    private final long size;
    private final long a;
    private final long aInverse;
    private static final long C = 12_345_679L;

    Communities(int n, int size) {
      this.n = n;
      this.size = size;
      long m = Math.max(1, n);
      long x = (long) (m * 0.6180339887) | 1;
      while (java.math.BigInteger.valueOf(x).gcd(java.math.BigInteger.valueOf(m)).intValue() != 1) {
        x += 2;
      }
      this.a = x % m;
      this.aInverse =
          m == 1
              ? 0
              : java.math.BigInteger.valueOf(a)
                  .modInverse(java.math.BigInteger.valueOf(m))
                  .longValue();
    }

    /** The rank of {@code v}. */
    long rank(int v) {
      return Math.floorMod(a * v + C, n);
    }

    /** The member of {@code v}'s community at fraction {@code r} of it. */
    int member(int v, float r) {
      long first = rank(v) / size * size;
      long count = Math.min(size, n - first);
      long k = first + Math.min(count - 1, (long) (r * count));
      // a, aInverse and every rank are below n <= 2^31, so the products fit a long
      return (int) ((aInverse * Math.floorMod(k - C, n)) % n);
    }
  }
}
