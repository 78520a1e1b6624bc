package io.fanout.graph;

import io.fanout.store.CsrFileWriter;
import io.fanout.store.FeatureEncoder;
import io.fanout.store.FeatureFileWriter;
import io.fanout.store.FeatureParams;
import io.fanout.store.NodesFileWriter;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.store.StoreOutput;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Writes small graph stores with the real writers and commit protocol, without Spark, for reader
 * tests: a reference graph in heap arrays goes in, a store directory comes out.
 */
public final class StoreFixtures {
  private StoreFixtures() {}

  /** A reference graph in heap arrays: in-neighbor rows, features, labels, splits. */
  public static final class Graph {
    public final int[][] rows;
    public final float[][] features;
    public final int[] labels;
    public final byte[] splits;

    public Graph(int[][] rows, float[][] features, int[] labels, byte[] splits) {
      this.rows = rows;
      this.features = features;
      this.labels = labels;
      this.splits = splits;
    }

    public int numVertices() {
      return rows.length;
    }

    public long numEdges() {
      long e = 0;
      for (int[] r : rows) {
        e += r.length;
      }
      return e;
    }
  }

  /** A seeded random graph: degrees 0..maxDegree, sorted rows, features of {@code dim}. */
  public static Graph random(long seed, int n, int maxDegree, int dim) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int[][] rows = new int[n][];
    float[][] feats = new float[n][dim];
    int[] labels = new int[n];
    byte[] splits = new byte[n];
    for (int v = 0; v < n; v++) {
      int d = rnd.nextInt(maxDegree + 1);
      rows[v] = new int[d];
      for (int i = 0; i < d; i++) {
        rows[v][i] = rnd.nextInt(n);
      }
      Arrays.sort(rows[v]);
      for (int j = 0; j < dim; j++) {
        feats[v][j] = (float) rnd.nextGaussian();
      }
      labels[v] = rnd.nextInt(5) - 1;
      splits[v] = (byte) rnd.nextInt(4);
    }
    return new Graph(rows, feats, labels, splits);
  }

  /**
   * Writes {@code g} as a store at {@code store}, cut into partitions of the given sizes (which sum
   * to the vertex count), and publishes it with its manifest.
   */
  public static StoreManifest write(Path store, Graph g, int[] partitionSizes) {
    return write(store, g, partitionSizes, null);
  }

  /**
   * {@link #write(Path, Graph, int[])} with the features encoded as {@code params} say (null: f32),
   * and the parameters file of a quantized encoding.
   */
  public static StoreManifest write(
      Path store, Graph g, int[] partitionSizes, FeatureParams params) {
    return write(store, g, partitionSizes, params, null, null, 1);
  }

  /**
   * {@link #write(Path, Graph, int[], FeatureParams)} with the feature rows moved to {@code
   * positions} by {@link FeatureRelayout} on {@code threads} threads and recorded as {@code layout}
   * (null: rows at their ids).
   */
  public static StoreManifest write(
      Path store,
      Graph g,
      int[] partitionSizes,
      FeatureParams params,
      io.fanout.store.FeatureLayoutKind layout,
      int[] positions,
      int threads) {
    io.fanout.store.OutputCommit.Run run = StoreOutput.COMMIT.begin(store);
    Path staging = run.dir();
    StoreManifest m = new StoreManifest();
    int dim = g.numVertices() == 0 ? 0 : g.features[0].length;
    long first = 0;
    int classes = 0;
    for (int p = 0; p < partitionSizes.length; p++) {
      int n = partitionSizes[p];
      long edges = 0;
      try (CsrFileWriter csr =
              new CsrFileWriter(staging.resolve(StoreLayout.csrFile(p)), p, first, n);
          NodesFileWriter nodes =
              new NodesFileWriter(staging.resolve(StoreLayout.nodesFile(p)), p, first, n)) {
        FeatureParams fp = params != null ? params : FeatureParams.plain(0, dim);
        FeatureEncoder enc = new FeatureEncoder(fp);
        byte[] encoded = new byte[fp.rowBytes()];
        FeatureFileWriter feat =
            dim > 0
                ? new FeatureFileWriter(staging.resolve(StoreLayout.featuresFile(p)), first, n, fp)
                : null;
        for (int i = 0; i < n; i++) {
          int v = (int) first + i;
          for (int u : g.rows[v]) {
            csr.addNeighbor(u);
          }
          csr.endRow();
          edges += g.rows[v].length;
          nodes.write(g.labels[v], g.splits[v]);
          classes = Math.max(classes, g.labels[v] + 1);
          if (feat != null) {
            enc.encode(g.features[v], 0, encoded);
            feat.writeEncodedRow(encoded);
          }
        }
        csr.finish();
        nodes.finish();
        if (feat != null) {
          feat.finish();
        }
      }
      m.partitionTable.add(new StoreManifest.Partition(p, first, n, edges));
      first += n;
    }
    m.vertices = g.numVertices();
    m.edges = g.numEdges();
    m.partitions = partitionSizes.length;
    m.featureDim = dim;
    if (params != null) {
      m.featureEncoding = StoreLayout.encodingName(params.encoding);
      if (FeatureParams.hasFile(params.encoding)) {
        params.write(staging.resolve(StoreLayout.FEATURE_PARAMS));
      }
    }
    if (layout != null) {
      long[] starts = new long[partitionSizes.length + 1];
      for (int p = 0; p < partitionSizes.length; p++) {
        starts[p + 1] = starts[p] + partitionSizes[p];
      }
      FeatureParams fp = params != null ? params : FeatureParams.plain(0, dim);
      FeatureRelayout.write(staging, starts, fp.rowBytes(), positions, layout, threads);
      m.featureLayout = layout.id();
    }
    m.classes = classes;
    m.idType = "long";
    m.inputFingerprint = "fixture";
    m.files = StoreOutput.files(staging);
    StoreOutput.COMMIT.publish(run, m, true);
    return m;
  }
}
