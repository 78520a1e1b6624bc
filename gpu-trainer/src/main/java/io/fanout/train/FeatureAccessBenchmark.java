package io.fanout.train;

import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.cuda.CudaBackend;
import io.fanout.tensor.cuda.ZeroCopyFeatures;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch's input features fetched onto the GPU two ways, timed on the same batches in one run:
 * {@code gather} (the CPU copies the rows into a heap array, which is uploaded) and {@code
 * zero-copy} (the node ids go up and the {@code gather_parts} kernel reads the rows from mapped
 * pinned host memory over PCIe; the CPU touches no feature). Each is run once untimed over the
 * batches first.
 */
final class FeatureAccessBenchmark {
  private FeatureAccessBenchmark() {}

  static Map<String, Object> run(CudaBackend be, float[] feats, int dim, List<int[]> batches) {
    Map<String, Object> out = new LinkedHashMap<>();
    int maxRows = 0;
    for (int[] ids : batches) {
      maxRows = Math.max(maxRows, ids.length);
    }
    if (maxRows == 0) {
      return out;
    }
    float[] host = new float[maxRows * dim];
    long gatherNanos = 0;
    long zeroCopyNanos = 0;
    try (ZeroCopyFeatures z = ZeroCopyFeatures.pinnedCopy(be, feats, feats.length / dim, dim);
        FloatTensor x = be.allocFloat(maxRows * dim);
        IntTensor ids = be.allocInt(maxRows)) {
      for (int round = 0; round < 2; round++) {
        for (int[] b : batches) {
          int rows = b.length;
          long t0 = System.nanoTime();
          for (int i = 0; i < rows; i++) {
            System.arraycopy(feats, b[i] * dim, host, i * dim, dim);
          }
          be.upload(host, 0, x, 0, rows * dim);
          be.sync();
          long t1 = System.nanoTime();
          be.upload(b, 0, ids, 0, rows);
          z.gather(ids, 0, rows, x, 0);
          be.sync();
          long t2 = System.nanoTime();
          if (round == 1) {
            gatherNanos += t1 - t0;
            zeroCopyNanos += t2 - t1;
          }
        }
      }
      out.put("feature_access_batches", batches.size());
      out.put("feature_gather_upload_ms_per_batch", gatherNanos / 1e6 / batches.size());
      out.put("feature_zero_copy_ms_per_batch", zeroCopyNanos / 1e6 / batches.size());
      out.put("feature_zero_copy_registered_chunks", z.registeredChunks());
    }
    return out;
  }
}
