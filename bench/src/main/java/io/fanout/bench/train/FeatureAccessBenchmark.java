package io.fanout.bench.train;

import io.fanout.features.StoreFeatureRows;
import io.fanout.store.FeatureEncoder;
import io.fanout.store.FeatureParams;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.cuda.CudaBackend;
import io.fanout.tensor.cuda.KernelFeatureRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch's input features fetched onto the GPU two ways, timed on the same batches in one run:
 * {@code gather} (the CPU copies the rows into a heap array, which is uploaded) and {@code
 * zero-copy} (the node ids go up and the {@code gather_parts} kernel reads the rows from mapped
 * pinned host memory over PCIe; the CPU touches no feature). Each is run once untimed over the
 * batches first. Then the zero-copy read of the same rows encoded as f16, int8 and int4, decoded by
 * the gather kernel (2, 4 and 8 times fewer bytes over PCIe).
 */
final class FeatureAccessBenchmark {
  private FeatureAccessBenchmark() {}

  /**
   * Times {@code batches} of {@code bg}'s rows; reads the zero-copy rows from {@code pinned} (the
   * training run's pinned copy of the same rows) or, when it is null, from a pinned copy of its
   * own.
   */
  static Map<String, Object> run(
      CudaBackend be,
      BenchGraph bg,
      List<int[]> batches,
      KernelFeatureRows pinned,
      boolean encoded) {
    float[] feats = bg.features();
    int dim = bg.dim();
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
    KernelFeatureRows own =
        pinned == null ? KernelFeatureRows.pinnedCopy(be, feats, feats.length / dim, dim) : null;
    KernelFeatureRows z = pinned == null ? own : pinned;
    try (KernelFeatureRows closeOwn = own;
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
      for (int encoding : encoded ? ENCODINGS : new int[0]) {
        out.put(
            "feature_zero_copy_" + StoreLayout.encodingName(encoding) + "_ms_per_batch",
            encodedZeroCopyMs(be, bg, encoding, batches, ids, x));
      }
    }
    return out;
  }

  /**
   * Encodings whose decode-gather kernels are timed next to f32 (rows 2, 4 and 8 times smaller).
   */
  private static final int[] ENCODINGS = {
    StoreLayout.ENCODING_F16, StoreLayout.ENCODING_INT8, StoreLayout.ENCODING_INT4
  };

  /**
   * Milliseconds per batch of the decode-gather kernel over the features encoded with {@code
   * encoding} (per-column affine from their min and max for int8 and int4), written to a temporary
   * feature file as a store holds them and read through its registered mapping.
   */
  private static double encodedZeroCopyMs(
      CudaBackend be,
      BenchGraph bg,
      int encoding,
      List<int[]> batches,
      IntTensor ids,
      FloatTensor x) {
    float[] feats = bg.features();
    int dim = bg.dim();
    int n = feats.length / dim;
    FeatureParams params = bg.encodedParams(encoding);
    FeatureEncoder enc = new FeatureEncoder(params);
    Path file = null;
    try {
      file = Files.createTempFile("fanout-bench-features-", ".feat");
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
        ch.write(ByteBuffer.allocate(StoreLayout.HEADER_BYTES));
        int per = Math.max(1, (8 << 20) / params.rowBytes());
        ByteBuffer buf = ByteBuffer.allocate(per * params.rowBytes());
        byte[] row = new byte[params.rowBytes()];
        for (int v0 = 0; v0 < n; v0 += per) {
          buf.clear();
          for (int v = v0; v < Math.min(n, v0 + per); v++) {
            enc.encode(feats, v * dim, row);
            buf.put(row);
          }
          buf.flip();
          while (buf.hasRemaining()) {
            ch.write(buf);
          }
        }
      }
      long nanos = 0;
      try (KernelFeatureRows z =
          KernelFeatureRows.ofFiles(
              be,
              StoreFeatureRows.files(new Path[] {file}, new long[] {0, n}, params),
              KernelFeatureRows.MAX_CHUNK)) {
        for (int round = 0; round < 2; round++) {
          for (int[] b : batches) {
            long t0 = System.nanoTime();
            be.upload(b, 0, ids, 0, b.length);
            z.gather(ids, 0, b.length, x, 0);
            be.sync();
            if (round == 1) {
              nanos += System.nanoTime() - t0;
            }
          }
        }
      }
      return nanos / 1e6 / batches.size();
    } catch (IOException e) {
      throw new UncheckedIOException("writing the encoded benchmark features failed", e);
    } finally {
      if (file != null) {
        try {
          Files.deleteIfExists(file);
        } catch (IOException e) {
          // a temporary file left behind is not worth failing the benchmark for
        }
      }
    }
  }
}
