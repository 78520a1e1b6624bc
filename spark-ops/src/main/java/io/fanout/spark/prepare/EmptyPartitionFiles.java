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
      long n = counts[p];
      if (!written[p]) {
        try (CsrFileWriter w =
            new CsrFileWriter(staging.resolve(StoreLayout.csrFile(p)), p, firsts[p], n)) {
          for (long i = 0; i < n; i++) {
            w.endRow();
          }
          w.finish();
        }
        if (weighted) {
          try (WeightFileWriter w =
              new WeightFileWriter(staging.resolve(StoreLayout.weightsFile(p)), p, firsts[p], n)) {
            w.finish();
          }
        }
        if (n > 0) {
          emptyRows = true;
        }
      }
      if (n == 0) {
        try (NodesFileWriter w =
            new NodesFileWriter(staging.resolve(StoreLayout.nodesFile(p)), p, firsts[p], 0)) {
          w.finish();
        }
        if (dim > 0) {
          try (FeatureFileWriter w =
              new FeatureFileWriter(
                  staging.resolve(StoreLayout.featuresFile(p)),
                  firsts[p],
                  0,
                  dim,
                  StoreLayout.ENCODING_F32)) {
            w.finish();
          }
        }
      }
    }
    return emptyRows;
  }
}
