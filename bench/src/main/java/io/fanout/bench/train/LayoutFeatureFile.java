package io.fanout.bench.train;

import io.fanout.features.RowLayout;
import io.fanout.store.StoreLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes a {@link BenchGraph}'s f32 rows to one feature file (a store's layout: a header, then the
 * rows) in the order a {@link RowLayout} gives, one row at a time from {@link BenchGraph#feature}
 * (no table in memory), and forces it to the disk.
 */
final class LayoutFeatureFile {
  private LayoutFeatureFile() {}

  static void write(Path file, int rows, int dim, RowLayout layout) {
    int[] rowAt = layout.isIdentity() ? null : layout.rowsByPosition(rows);
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.allocate(StoreLayout.HEADER_BYTES));
      ByteBuffer buf = ByteBuffer.allocateDirect(4 << 20).order(ByteOrder.LITTLE_ENDIAN);
      FloatBuffer floats = buf.asFloatBuffer();
      int perBuffer = Math.max(1, buf.capacity() / (4 * dim));
      for (int at = 0; at < rows; ) {
        int len = Math.min(perBuffer, rows - at);
        floats.clear();
        for (int p = at; p < at + len; p++) {
          int v = rowAt == null ? p : rowAt[p];
          for (int c = 0; c < dim; c++) {
            floats.put(BenchGraph.feature(v, c, dim));
          }
        }
        buf.clear().limit(4 * len * dim);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        at += len;
      }
      ch.force(true);
    } catch (IOException e) {
      throw new UncheckedIOException("writing " + file + " failed: " + e.getMessage(), e);
    }
  }
}
