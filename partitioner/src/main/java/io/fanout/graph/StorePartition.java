package io.fanout.graph;

import io.fanout.store.CsrFileWriter;
import io.fanout.store.FeatureFileWriter;
import io.fanout.store.InvalidInputException;
import io.fanout.store.ManifestPaths;
import io.fanout.store.NodesFileWriter;
import io.fanout.store.StoreHeader;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.store.WeightFileWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One partition of a graph store, memory-mapped on its own: for distributed jobs in which a task
 * serves only the vertices its partition owns ({@code sample --mode partitioned}). Vertex ids are
 * global dense ids; asking for a vertex the partition does not own is an error.
 */
public final class StorePartition {
  private final StoreManifest.Partition entry;
  private final Path root;
  private final Path data;
  private ChunkedMapping csr;
  private ChunkedMapping nodes;
  private ChunkedMapping features;
  private ChunkedMapping encodedFeatures;
  private ChunkedMapping featureOrder;
  private final long vertices;
  private final boolean featureLayout;
  private ChunkedMapping weights;
  private final int dim;
  private final boolean weighted;

  private StorePartition(Path root, StoreManifest manifest, int index) {
    if (index < 0 || index >= manifest.partitions) {
      throw new IllegalArgumentException(
          "partition " + index + " outside 0.." + (manifest.partitions - 1));
    }
    this.root = root;
    this.data = manifest.dataRoot(root);
    this.entry = manifest.partitionTable.get(index);
    this.dim = manifest.featureDim;
    this.weighted = manifest.weighted;
    this.vertices = manifest.vertices;
    this.featureLayout = manifest.featureLayout != null;
  }

  /** Opens nothing yet; each view maps its file on first use. */
  public static StorePartition of(Path store, StoreManifest manifest, int index) {
    return new StorePartition(store, manifest, index);
  }

  public long firstVertex() {
    return entry.firstVertex;
  }

  public long numVertices() {
    return entry.numVertices;
  }

  private int row(int v) {
    long r = v - entry.firstVertex;
    if (r < 0 || r >= entry.numVertices) {
      throw new IllegalArgumentException(
          "vertex " + v + " is not owned by partition " + entry.index);
    }
    return (int) r;
  }

  /**
   * The row of owned vertex {@code v} in this partition's feature file: {@code v}'s own row, or
   * where the store's {@code feature_layout} put it ({@link FeatureRowOrder}).
   */
  private int featureRow(int v) {
    int r = row(v);
    if (!featureLayout) {
      return r;
    }
    ChunkedMapping o;
    synchronized (this) {
      if (featureOrder == null) {
        featureOrder =
            map(
                StoreLayout.FEATURE_ORDER,
                StoreLayout.ORDER_MAGIC,
                FeatureRowOrder.fileLength(vertices));
      }
      o = featureOrder;
    }
    return (int) (o.getInt(StoreLayout.HEADER_BYTES + 4L * v) - entry.firstVertex);
  }

  private ChunkedMapping map(String rel, byte[] magic, long expectedLength) {
    Path p =
        ManifestPaths.resolve(data, root.resolve(StoreLayout.MANIFEST).toString(), "store", rel);
    if (!Files.isRegularFile(p)) {
      throw new InvalidInputException(
          p
              + ": missing part file of the store (removed, or the store was replaced while this"
              + " job read it); rerun prepare or this job");
    }
    ChunkedMapping m = new ChunkedMapping(p);
    StoreHeader.parse(m.file(), m.head(StoreLayout.HEADER_BYTES), magic, m.length());
    if (m.length() != expectedLength) {
      throw new InvalidInputException(
          p + ": " + m.length() + " bytes, expected " + expectedLength + " from the manifest");
    }
    return m;
  }

  /**
   * In-neighbor rows of the owned vertices. Positions are relative to this partition's file; only
   * {@code rowStart}/{@code rowEnd} of owned vertices and positions inside their rows are valid.
   */
  public synchronized CsrGraph csr() {
    if (csr == null) {
      csr =
          map(
              StoreLayout.csrFile(entry.index),
              StoreLayout.CSR_MAGIC,
              CsrFileWriter.fileLength(entry.numVertices, entry.numEdges));
    }
    final ChunkedMapping m = csr;
    final long indices = CsrFileWriter.indicesOffset(entry.numVertices);
    return new CsrGraph() {
      @Override
      public int numVertices() {
        return (int) (entry.firstVertex + entry.numVertices);
      }

      @Override
      public long numEdges() {
        return entry.numEdges;
      }

      @Override
      public long rowStart(int v) {
        return m.getLong(StoreLayout.HEADER_BYTES + 8L * row(v));
      }

      @Override
      public long rowEnd(int v) {
        return m.getLong(StoreLayout.HEADER_BYTES + 8L * (row(v) + 1L));
      }

      @Override
      public int neighbor(long position) {
        return m.getInt(indices + 4 * position);
      }
    };
  }

  /**
   * Weights of the entries of {@link #csr()}, by the same partition-relative positions.
   *
   * @throws InvalidInputException when the store has no weights
   */
  public synchronized EdgeWeights weights() {
    if (!weighted) {
      throw GraphStore.notWeighted(root);
    }
    if (weights == null) {
      weights =
          map(
              StoreLayout.weightsFile(entry.index),
              StoreLayout.WEIGHTS_MAGIC,
              WeightFileWriter.fileLength(entry.numEdges));
    }
    final ChunkedMapping m = weights;
    return new EdgeWeights() {
      @Override
      public float weight(long position) {
        return m.getFloat(StoreLayout.HEADER_BYTES + 4 * position);
      }

      @Override
      public void copy(long start, float[] dst, int off, int len) {
        m.getFloats(StoreLayout.HEADER_BYTES + 4 * start, dst, off, len);
      }
    };
  }

  private synchronized ChunkedMapping nodes() {
    if (nodes == null) {
      nodes =
          map(
              StoreLayout.nodesFile(entry.index),
              StoreLayout.NODES_MAGIC,
              NodesFileWriter.fileLength(entry.numVertices));
    }
    return nodes;
  }

  /** Label of an owned vertex (-1 = unlabeled). */
  public int label(int v) {
    return nodes().getInt(StoreLayout.HEADER_BYTES + 4L * row(v));
  }

  /** Split code of an owned vertex. */
  public byte split(int v) {
    return nodes().get(NodesFileWriter.splitsOffset(entry.numVertices) + row(v));
  }

  /** Feature values per row (0 when the store has none). */
  public int dim() {
    return dim;
  }

  /** Copies the f32 feature row of an owned vertex into {@code out[off .. off+dim)}. */
  public void features(int v, float[] out, int off) {
    if (dim == 0) {
      return;
    }
    ChunkedMapping f;
    synchronized (this) {
      if (features == null) {
        features =
            map(
                StoreLayout.featuresFile(entry.index),
                StoreLayout.FEATURES_MAGIC,
                FeatureFileWriter.fileLength(entry.numVertices, 4 * dim));
      }
      f = features;
    }
    f.getFloats(StoreLayout.HEADER_BYTES + 4L * dim * featureRow(v), out, off, dim);
  }

  /**
   * Copies the feature row of an owned vertex as stored, {@code rowBytes} bytes in the store's
   * encoding ({@code FeatureParams.rowBytes()}), into {@code out[off .. off+rowBytes)}.
   */
  public void encodedFeatures(int v, int rowBytes, byte[] out, int off) {
    if (dim == 0) {
      return;
    }
    ChunkedMapping f;
    synchronized (this) {
      if (encodedFeatures == null) {
        encodedFeatures =
            map(
                StoreLayout.featuresFile(entry.index),
                StoreLayout.FEATURES_MAGIC,
                FeatureFileWriter.fileLength(entry.numVertices, rowBytes));
      }
      f = encodedFeatures;
    }
    f.getBytes(StoreLayout.HEADER_BYTES + (long) rowBytes * featureRow(v), out, off, rowBytes);
  }
}
