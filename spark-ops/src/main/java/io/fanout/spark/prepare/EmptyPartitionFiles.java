package io.fanout.spark.prepare;

import io.fanout.store.CsrFileWriter;
import io.fanout.store.FeatureFileWriter;
import io.fanout.store.NodesFileWriter;
import io.fanout.store.StoreLayout;
import io.fanout.store.WeightFileWriter;
import java.nio.file.Path;

/**
 * The files of the partitions no {@code prepare} task wrote, written on the driver: they are empty
 * (a partition without vertices, or without edges, whose csr file has only empty rows).
 */
final class EmptyPartitionFiles {
  private EmptyPartitionFiles() {}

  /**
   * Writes the csr (and weight) files of the partitions not {@code written} by a csr task and the
   * nodes (and feature) files of the partitions without vertices.
   *
   * @return whether a partition with vertices got an empty csr file here (its degree is 0)
   */
  static boolean write(
      Path staging,
      int parts,
      long[] firsts,
      long[] counts,
      boolean[] written,
      boolean weighted,
      int dim) {
    boolean emptyRows = false;
    for (int p = 0; p < parts; p++) {
      if (!written[p]) {
        emptyRows |= csr(staging, p, firsts[p], counts[p], weighted);
      }
      if (counts[p] == 0) {
        vertexFiles(staging, p, firsts[p], dim);
      }
    }
    return emptyRows;
  }

  /**
   * Writes the csr (and weight) file of partition {@code p}, owning {@code n} vertices from {@code
   * first}, with every row empty.
   *
   * @return whether it has vertices (then their degree is 0)
   */
  static boolean csr(Path staging, int p, long first, long n, boolean weighted) {
    try (CsrFileWriter w =
        new CsrFileWriter(staging.resolve(StoreLayout.csrFile(p)), p, first, n)) {
      for (long i = 0; i < n; i++) {
        w.endRow();
      }
      w.finish();
    }
    if (weighted) {
      try (WeightFileWriter w =
          new WeightFileWriter(staging.resolve(StoreLayout.weightsFile(p)), p, first, n)) {
        w.finish();
      }
    }
    return n > 0;
  }

  /** Writes the nodes (and f32 feature) file of partition {@code p}, which has no vertices. */
  static void vertexFiles(Path staging, int p, long first, int dim) {
    try (NodesFileWriter w =
        new NodesFileWriter(staging.resolve(StoreLayout.nodesFile(p)), p, first, 0)) {
      w.finish();
    }
    if (dim > 0) {
      try (FeatureFileWriter w =
          new FeatureFileWriter(
              staging.resolve(StoreLayout.featuresFile(p)),
              first,
              0,
              dim,
              StoreLayout.ENCODING_F32)) {
        w.finish();
      }
    }
  }
}
