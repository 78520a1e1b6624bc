package io.fanout.bench.train;

import io.fanout.features.RowLayout;
import io.fanout.store.FeatureEncoder;
import io.fanout.store.FeatureParams;
import io.fanout.store.StoreLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Writes a {@link BenchGraph}'s rows to one feature file (a store's layout: a header, then the rows
 * encoded as {@link FeatureParams} say) in the order a {@link RowLayout} gives, each row computed
 * from {@link BenchGraph#feature} as it is written (no table in memory, so any number of values),
 * on several threads writing disjoint ranges, and forces it to the disk.
 */
final class LayoutFeatureFile {
  private LayoutFeatureFile() {}

  /** f32 rows, on as many threads as the machine has cores. */
  static void write(Path file, int rows, int dim, RowLayout layout) {
    write(
        file,
        rows,
        FeatureParams.plain(StoreLayout.ENCODING_F32, dim),
        layout,
        Runtime.getRuntime().availableProcessors());
  }

  /** Rows encoded as {@code params} (f32 or f16), on {@code threads} threads. */
  static void write(Path file, int rows, FeatureParams params, RowLayout layout, int threads) {
    int[] rowAt = layout.isIdentity() ? null : layout.rowsByPosition(rows);
    int t = Math.max(1, Math.min(threads, rows / 1024 + 1));
    ExecutorService pool = Executors.newFixedThreadPool(t);
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.allocate(StoreLayout.HEADER_BYTES), 0);
      List<Future<?>> parts = new ArrayList<>();
      for (int i = 0; i < t; i++) {
        int from = (int) ((long) rows * i / t);
        int to = (int) ((long) rows * (i + 1) / t);
        parts.add(pool.submit(() -> writeRange(ch, params, rowAt, from, to)));
      }
      for (Future<?> f : parts) {
        f.get();
      }
      ch.force(true);
    } catch (IOException e) {
      throw new UncheckedIOException("writing " + file + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while writing " + file, e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("writing " + file + " failed: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** Positions {@code [from, to)}, written at their offsets. */
  private static Void writeRange(
      FileChannel ch, FeatureParams params, int[] rowAt, int from, int to) throws IOException {
    int dim = params.dim;
    int rowBytes = params.rowBytes();
    FeatureEncoder enc =
        params.encoding == StoreLayout.ENCODING_F32 ? null : new FeatureEncoder(params);
    float[] row = new float[dim];
    byte[] encoded = new byte[rowBytes];
    ByteBuffer buf =
        ByteBuffer.allocateDirect(Math.max(1, (4 << 20) / rowBytes) * rowBytes)
            .order(ByteOrder.LITTLE_ENDIAN);
    int perBuffer = buf.capacity() / rowBytes;
    for (int at = from; at < to; ) {
      int len = Math.min(perBuffer, to - at);
      buf.clear();
      for (int p = at; p < at + len; p++) {
        int v = rowAt == null ? p : rowAt[p];
        for (int c = 0; c < dim; c++) {
          row[c] = BenchGraph.feature(v, c, dim);
        }
        if (enc == null) {
          for (float x : row) {
            buf.putFloat(x);
          }
        } else {
          enc.encode(row, 0, encoded);
          buf.put(encoded);
        }
      }
      buf.flip();
      long pos = StoreLayout.HEADER_BYTES + (long) at * rowBytes;
      while (buf.hasRemaining()) {
        pos += ch.write(buf, pos);
      }
      at += len;
    }
    return null;
  }
}
