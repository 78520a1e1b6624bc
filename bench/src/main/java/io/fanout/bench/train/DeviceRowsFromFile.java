package io.fanout.bench.train;

import io.fanout.features.RowLayout;
import io.fanout.features.StoreFeatureRows;
import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.Backend;
import io.fanout.tensor.cuda.CudaBackend;
import io.fanout.tensor.cuda.KernelFeatureRows;
import io.fanout.train.FeatureAccessMode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The benchmark's rows when there are more values than one Java array holds (papers100M size: 111 M
 * x 128 = 14.2 G values): they are never held on the heap, but written as f16 rows to a feature
 * file under {@code java.io.tmpdir} (computed row by row from {@link BenchGraph#feature}, on every
 * core), uploaded from it once into device memory, and the file is removed. Only {@code
 * --feature-access device} on CUDA reads rows this way; other runs of that size are refused.
 */
final class DeviceRowsFromFile {
  private DeviceRowsFromFile() {}

  /** Refuses a run whose rows cannot be read from device memory uploaded from a file. */
  static void check(TrainBenchmark.Settings s, Backend be) {
    if (s.featureAccess() != FeatureAccessMode.DEVICE
        || !(be instanceof CudaBackend)
        || s.featureCacheFraction() > 0
        || s.verifyRounds() > 0) {
      throw new InvalidInputException(
          s.vertices()
              + " x "
              + s.features()
              + " feature values are more than one Java array holds (2^31 - 9); at that size the"
              + " benchmark keeps them only as f16 rows uploaded to the device from a file: use"
              + " --backend cuda --feature-access device, without --feature-cache-fraction or"
              + " --verify-rounds");
    }
  }

  /**
   * Writes the f16 rows, uploads them, removes the file; puts the route, the file's bytes and the
   * seconds each part took into {@code report}.
   */
  static KernelFeatureRows upload(CudaBackend be, int n, int dim, Map<String, Object> report) {
    FeatureParams params = FeatureParams.plain(StoreLayout.ENCODING_F16, dim);
    Path file;
    try {
      file = Files.createTempFile("fanout-bench-rows", ".feat");
      Files.delete(file); // written afresh below
    } catch (IOException e) {
      throw new UncheckedIOException("creating the feature file failed: " + e.getMessage(), e);
    }
    try {
      long t0 = System.nanoTime();
      LayoutFeatureFile.write(
          file, n, params, RowLayout.IDENTITY, Runtime.getRuntime().availableProcessors());
      long t1 = System.nanoTime();
      KernelFeatureRows rows =
          KernelFeatureRows.resident(
              be, StoreFeatureRows.files(new Path[] {file}, new long[] {0, n}, params));
      long t2 = System.nanoTime();
      report.put("features_route", "f16 file on disk, uploaded to device memory");
      report.put("feature_file_bytes", (long) n * params.rowBytes());
      report.put("feature_file_write_seconds", (t1 - t0) / 1e9);
      report.put("feature_upload_seconds", (t2 - t1) / 1e9);
      return rows;
    } finally {
      try {
        Files.deleteIfExists(file);
      } catch (IOException e) {
        // a temporary file: left for the system to clear
      }
    }
  }
}
