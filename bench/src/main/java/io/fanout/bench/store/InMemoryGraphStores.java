package io.fanout.bench.store;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.VertexTable;
import io.fanout.store.CsrFileWriter;
import io.fanout.store.FeatureEncoder;
import io.fanout.store.FeatureFileWriter;
import io.fanout.store.FeatureParams;
import io.fanout.store.NodesFileWriter;
import io.fanout.store.OutputCommit;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.store.StoreOutput;
import io.fanout.store.WeightFileWriter;
import java.nio.file.Path;

/**
 * Writes a graph held in memory (a generated benchmark graph) as a graph store, with the store's
 * own writers and commit protocol, so benchmarks read the same memory-mapped files {@code prepare}
 * writes. Not for real data: there is no id map, and the original ids are the dense ones.
 */
public final class InMemoryGraphStores {
  private InMemoryGraphStores() {}

  /**
   * Feature rows computed one at a time, so no float32 copy of them is held. Called from several
   * threads at once (a partition each), so it must be thread-safe.
   */
  @FunctionalInterface
  public interface RowSource {
    /** Writes vertex {@code v}'s row ({@code dim} values) to {@code out[0 .. dim)}. */
    void row(int v, float[] out);
  }

  /**
   * {@link #write}, with the feature rows taken from {@code rows} one at a time and stored encoded
   * with {@code params} (any encoding; its parameters file is written with the store).
   */
  public static StoreManifest writeEncoded(
      Path store,
      CsrGraph g,
      VertexTable vt,
      RowSource rows,
      FeatureParams params,
      int partitions,
      int classes,
      String inputFingerprint) {
    OutputCommit.Run run = StoreOutput.COMMIT.begin(store);
    try {
      StoreManifest m = fill(run.dir(), g, vt, null, rows, params, params.dim, null, partitions);
      m.classes = classes;
      m.inputFingerprint = inputFingerprint;
      StoreOutput.COMMIT.publish(run, m, true);
      return m;
    } catch (RuntimeException e) {
      StoreOutput.COMMIT.abort(run);
      throw e;
    }
  }

  /**
   * Writes {@code g} with labels and splits from {@code vt} into {@code store}, replacing what is
   * there, as {@code partitions} equal ranges of dense ids.
   *
   * @param features row-major f32 rows of {@code dim} values, or null for a store without features
   * @param weights a weight per CSR position, or null for an unweighted store
   * @param classes the manifest's class count
   * @param inputFingerprint what the manifest records as the input, naming the generator
   * @return the published manifest
   */
  public static StoreManifest write(
      Path store,
      CsrGraph g,
      VertexTable vt,
      float[] features,
      int dim,
      float[] weights,
      int partitions,
      int classes,
      String inputFingerprint) {
    OutputCommit.Run run = StoreOutput.COMMIT.begin(store);
    try {
      StoreManifest m = fill(run.dir(), g, vt, features, null, null, dim, weights, partitions);
      m.classes = classes;
      m.inputFingerprint = inputFingerprint;
      StoreOutput.COMMIT.publish(run, m, true);
      return m;
    } catch (RuntimeException e) {
      StoreOutput.COMMIT.abort(run);
      throw e;
    }
  }

  private static StoreManifest fill(
      Path staging,
      CsrGraph g,
      VertexTable vt,
      float[] features,
      RowSource rows,
      FeatureParams params,
      int dim,
      float[] weights,
      int partitions) {
    StoreManifest m = new StoreManifest();
    int n = g.numVertices();
    long[][] splitsOf = new long[partitions][];
    StoreManifest.Partition[] table = new StoreManifest.Partition[partitions];
    // Partitions are separate files, so encoded rows (pq's nearest-centroid search above all) are
    // computed on every core; each partition's files are the same whatever the thread count.
    int threads =
        params == null ? 1 : Math.min(partitions, Runtime.getRuntime().availableProcessors());
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        int part = p;
        done.add(
            pool.submit(
                () -> {
                  splitsOf[part] = new long[4];
                  table[part] =
                      writePartition(
                          staging,
                          g,
                          vt,
                          features,
                          rows,
                          params,
                          dim,
                          weights,
                          partitions,
                          part,
                          splitsOf[part]);
                }));
      }
      for (java.util.concurrent.Future<?> f : done) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while writing a store", e);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable c = e.getCause();
      throw c instanceof RuntimeException re ? re : new IllegalStateException(c);
    } finally {
      pool.shutdownNow();
    }
    long[] splits = new long[4];
    for (int p = 0; p < partitions; p++) {
      m.partitionTable.add(table[p]);
      for (int s = 0; s < splits.length; s++) {
        splits[s] += splitsOf[p][s];
      }
    }
    m.vertices = n;
    m.edges = g.numEdges();
    m.partitions = partitions;
    m.featureDim = features == null && params == null ? 0 : dim;
    if (params != null) {
      m.featureEncoding = StoreLayout.encodingName(params.encoding);
      if (FeatureParams.hasFile(params.encoding)) {
        params.write(staging.resolve(StoreLayout.FEATURE_PARAMS));
      }
    }
    m.weighted = weights != null;
    m.idType = "long";
    for (int s = 0; s < splits.length; s++) {
      if (splits[s] > 0) {
        m.splitCounts.put(StoreLayout.splitName(s), splits[s]);
      }
    }
    m.files = StoreOutput.files(staging);
    return m;
  }

  /** Writes partition {@code p}'s files, counting its vertices per split into {@code splits}. */
  private static StoreManifest.Partition writePartition(
      Path staging,
      CsrGraph g,
      VertexTable vt,
      float[] features,
      RowSource rows,
      FeatureParams params,
      int dim,
      float[] weights,
      int partitions,
      int p,
      long[] splits) {
    int n = g.numVertices();
    FeatureEncoder enc = params == null ? null : new FeatureEncoder(params);
    float[] row = params == null ? null : new float[dim];
    byte[] encoded = params == null ? null : new byte[params.rowBytes()];
    int first = (int) ((long) n * p / partitions);
    int count = (int) ((long) n * (p + 1) / partitions) - first;
    try (CsrFileWriter csr =
            new CsrFileWriter(staging.resolve(StoreLayout.csrFile(p)), p, first, count);
        NodesFileWriter nodes =
            new NodesFileWriter(staging.resolve(StoreLayout.nodesFile(p)), p, first, count);
        FeatureFileWriter feat =
            params != null
                ? new FeatureFileWriter(
                    staging.resolve(StoreLayout.featuresFile(p)), first, count, params)
                : features == null
                    ? null
                    : new FeatureFileWriter(
                        staging.resolve(StoreLayout.featuresFile(p)),
                        first,
                        count,
                        dim,
                        StoreLayout.ENCODING_F32);
        WeightFileWriter wgt =
            weights == null
                ? null
                : new WeightFileWriter(
                    staging.resolve(StoreLayout.weightsFile(p)), p, first, count)) {
      for (int v = first; v < first + count; v++) {
        for (long e = g.rowStart(v); e < g.rowEnd(v); e++) {
          csr.addNeighbor(g.neighbor(e));
          if (wgt != null) {
            wgt.add(weights[(int) e]);
          }
        }
        csr.endRow();
        nodes.write(vt.label(v), vt.split(v));
        splits[vt.split(v)]++;
        if (enc != null) {
          rows.row(v, row);
          enc.encode(row, 0, encoded);
          feat.writeEncodedRow(encoded);
        } else if (feat != null) {
          feat.writeRow(features, v * dim);
        }
      }
      csr.finish();
      nodes.finish();
      if (feat != null) {
        feat.finish();
      }
      if (wgt != null) {
        wgt.finish();
      }
      return new StoreManifest.Partition(p, first, count, csr.edgesWritten());
    }
  }
}
