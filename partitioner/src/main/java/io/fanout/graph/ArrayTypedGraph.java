package io.fanout.graph;

import java.util.ArrayList;
import java.util.List;

/**
 * A {@link TypedGraph} held in heap arrays: for tests, generated graphs and small graphs built in
 * memory. Built with {@link #builder()}: types first, then relations from edge lists.
 */
public final class ArrayTypedGraph implements TypedGraph {
  private final TypedSchema schema;
  private final CsrGraph[] relations;
  private final VertexTable[] vertices;
  private final FeatureTable[] features;
  private final EdgeWeights[] weights;

  private ArrayTypedGraph(
      TypedSchema schema,
      CsrGraph[] relations,
      VertexTable[] vertices,
      FeatureTable[] features,
      EdgeWeights[] weights) {
    this.schema = schema;
    this.relations = relations;
    this.vertices = vertices;
    this.features = features;
    this.weights = weights;
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public TypedSchema schema() {
    return schema;
  }

  @Override
  public CsrGraph inNeighbors(int relation) {
    return relations[relation];
  }

  @Override
  public EdgeWeights weights(int relation) {
    return weights[relation];
  }

  @Override
  public VertexTable vertices(int type) {
    return vertices[type];
  }

  @Override
  public FeatureTable features(int type) {
    return features[type];
  }

  /** Collects types and relations; {@link #build()} sorts each relation's rows. */
  public static final class Builder {
    private final List<TypedSchema.VertexType> types = new ArrayList<>();
    private final List<float[]> featureRows = new ArrayList<>();
    private final List<int[]> labels = new ArrayList<>();
    private final List<byte[]> splits = new ArrayList<>();
    private final List<TypedSchema.Relation> relations = new ArrayList<>();
    private final List<int[][]> edges = new ArrayList<>();
    private final List<float[]> edgeWeights = new ArrayList<>();
    private long next;

    /**
     * Adds a vertex type of {@code count} vertices.
     *
     * @param features row-major {@code count x dim} rows, or null for a featureless type
     * @param labels class per vertex (-1 unlabelled), or null for an unlabelled type
     * @param splits split code per vertex ({@code StoreLayout.SPLIT_*}), or null
     */
    public Builder type(
        String name, int count, int dim, float[] features, int[] labels, byte[] splits) {
      if (features != null && features.length != (long) count * dim) {
        throw new IllegalArgumentException("type '" + name + "': features are not count x dim");
      }
      int classes = 0;
      if (labels != null) {
        for (int l : labels) {
          classes = Math.max(classes, l + 1);
        }
      }
      types.add(
          new TypedSchema.VertexType(
              name,
              next,
              count,
              features == null ? 0 : dim,
              features == null ? "" : "f32",
              classes,
              false));
      next += count;
      featureRows.add(features);
      this.labels.add(labels);
      this.splits.add(splits);
      return this;
    }

    /** Adds relation {@code name}: edge {@code i} runs from {@code src[i]} to {@code dst[i]}. */
    public Builder relation(String name, String srcType, String dstType, int[] src, int[] dst) {
      return relation(name, srcType, dstType, src, dst, null);
    }

    /**
     * Adds relation {@code name}: edge {@code i} runs from {@code src[i]} to {@code dst[i]} and
     * weighs {@code weights[i]} (finite, {@code >= 0}); null weights: an unweighted relation. A
     * row's repeated sources are ordered by weight, as {@code prepare} orders them.
     */
    public Builder relation(
        String name, String srcType, String dstType, int[] src, int[] dst, float[] weights) {
      if (src.length != dst.length || (weights != null && weights.length != src.length)) {
        throw new IllegalArgumentException(
            "relation '" + name + "': src, dst and weights differ in length");
      }
      for (int i = 0; weights != null && i < weights.length; i++) {
        if (!(weights[i] >= 0) || Float.isInfinite(weights[i])) {
          throw new IllegalArgumentException(
              "relation '" + name + "': edge " + i + " weighs " + weights[i] + "; expected >= 0");
        }
      }
      int s = indexOf(srcType);
      int d = indexOf(dstType);
      relations.add(new TypedSchema.Relation(name, s, d, src.length));
      edges.add(new int[][] {src.clone(), dst.clone()});
      edgeWeights.add(weights == null ? null : weights.clone());
      return this;
    }

    private int indexOf(String type) {
      for (int t = 0; t < types.size(); t++) {
        if (types.get(t).name().equals(type)) {
          return t;
        }
      }
      throw new IllegalArgumentException("unknown vertex type '" + type + "'");
    }

    public ArrayTypedGraph build() {
      TypedSchema schema = new TypedSchema(types, relations);
      CsrGraph[] csr = new CsrGraph[relations.size()];
      EdgeWeights[] weights = new EdgeWeights[relations.size()];
      for (int r = 0; r < csr.length; r++) {
        TypedSchema.Relation rel = relations.get(r);
        float[] w = edgeWeights.get(r);
        float[] sorted = w == null ? null : new float[w.length];
        csr[r] =
            csr(
                rel,
                edges.get(r)[0],
                edges.get(r)[1],
                w,
                sorted,
                (int) types.get(rel.srcType()).count(),
                (int) types.get(rel.dstType()).count());
        weights[r] = sorted == null ? null : p -> sorted[(int) p];
      }
      VertexTable[] vt = new VertexTable[types.size()];
      FeatureTable[] ft = new FeatureTable[types.size()];
      for (int t = 0; t < vt.length; t++) {
        int n = (int) types.get(t).count();
        int[] l = labels.get(t);
        byte[] s = splits.get(t);
        vt[t] = new HeapVertices(n, l, s);
        float[] f = featureRows.get(t);
        ft[t] = f == null ? null : new HeapFeatures(n, types.get(t).featureDim(), f);
      }
      return new ArrayTypedGraph(schema, csr, vt, ft, weights);
    }

    /**
     * The in-neighbor CSR of the edges, each row ascending by source; with {@code w}, the rows by
     * (source, weight), each entry's weight written to {@code sortedWeights} at its position.
     */
    private static CsrGraph csr(
        TypedSchema.Relation rel,
        int[] src,
        int[] dst,
        float[] w,
        float[] sortedWeights,
        int ns,
        int nd) {
      long[] indptr = new long[nd + 1];
      for (int i = 0; i < dst.length; i++) {
        if (dst[i] < 0 || dst[i] >= nd || src[i] < 0 || src[i] >= ns) {
          throw new IllegalArgumentException(
              "relation '" + rel.name() + "': edge " + i + " has an endpoint out of its type");
        }
        indptr[dst[i] + 1]++;
      }
      for (int v = 0; v < nd; v++) {
        indptr[v + 1] += indptr[v];
      }
      int[] fill = new int[nd];
      // (source << 32 | weight bits): non-negative floats' bits order as the floats do
      long[] keys = new long[src.length];
      for (int i = 0; i < dst.length; i++) {
        long bits = w == null ? 0 : Float.floatToIntBits(w[i]);
        keys[(int) indptr[dst[i]] + fill[dst[i]]++] = (long) src[i] << 32 | bits;
      }
      int[] indices = new int[src.length];
      for (int v = 0; v < nd; v++) {
        java.util.Arrays.sort(keys, (int) indptr[v], (int) indptr[v + 1]);
      }
      for (int p = 0; p < keys.length; p++) {
        indices[p] = (int) (keys[p] >>> 32);
        if (sortedWeights != null) {
          sortedWeights[p] = Float.intBitsToFloat((int) keys[p]);
        }
      }
      return new ArrayCsrGraph(indptr, indices);
    }
  }

  private record HeapVertices(int n, int[] labels, byte[] splits) implements VertexTable {
    @Override
    public int numVertices() {
      return n;
    }

    @Override
    public int label(int v) {
      return labels == null ? -1 : labels[v];
    }

    @Override
    public byte split(int v) {
      return splits == null ? 0 : splits[v];
    }
  }

  private record HeapFeatures(int n, int dim, float[] rows) implements FeatureTable {
    @Override
    public int numVertices() {
      return n;
    }

    @Override
    public void gather(int[] ids, int from, int count, float[] out, int outOffset) {
      for (int i = 0; i < count; i++) {
        System.arraycopy(rows, ids[from + i] * dim, out, outOffset + i * dim, dim);
      }
    }
  }
}
