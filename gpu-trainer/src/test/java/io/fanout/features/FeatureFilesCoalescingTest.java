package io.fanout.features;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.RowDecoder;
import io.fanout.store.FeatureParams;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.PageMemory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Merged reads return the same rows, bit for bit, as one read per row: seeded files of odd row
 * sizes (rows straddling block boundaries, rows larger than a block), one or two part files, rows
 * at their ids or moved by a {@link RowLayout}, through the page cache and with {@code O_DIRECT}.
 */
class FeatureFilesCoalescingTest {
  @TempDir Path tmp;

  private static final ReadCoalescing[] MERGED = {
    ReadCoalescing.DIRECT, ReadCoalescing.BUFFERED, new ReadCoalescing(100, 8192)
  };

  @Test
  void mergedReadsReturnTheRowsOfOneReadPerRow() throws IOException {
    int n = 2500;
    int file = 0;
    for (int enc : new int[] {StoreLayout.ENCODING_F32, StoreLayout.ENCODING_F16}) {
      for (int dim : new int[] {7, 131, 1031}) {
        FeatureParams params = FeatureParams.plain(enc, dim);
        int rowBytes = params.rowBytes();
        SplittableRandom rnd = new SplittableRandom(31L * dim + enc);
        byte[] rows = randomRows(rnd, n, dim, enc);
        for (long[] starts : new long[][] {{0, n}, {0, 977, n}}) {
          for (boolean moved : new boolean[] {false, true}) {
            RowLayout layout = moved ? RowLayout.of(permutation(rnd, n)) : RowLayout.IDENTITY;
            Path[] paths = write(rows, rowBytes, starts, layout, "f" + file++);
            for (boolean direct : new boolean[] {false, true}) {
              for (int[] request : requests(rnd, n)) {
                String what =
                    String.format(
                        "enc %d, dim %d, %d parts, moved %b, direct %b, %d rows",
                        enc, dim, starts.length - 1, moved, direct, request.length);
                Read want =
                    read(
                        paths,
                        starts,
                        params,
                        direct,
                        ReadCoalescing.ROW_AT_A_TIME,
                        layout,
                        request);
                assertThat(want.floats).as(what).isEqualTo(expected(rows, params, request));
                // a repeated row split between two of the 3 I/O threads is read by both
                long distinct = Arrays.stream(request).distinct().count();
                assertThat(want.reads).as(what).isBetween(distinct, distinct + 2);
                for (ReadCoalescing c : MERGED) {
                  Read got = read(paths, starts, params, direct, c, layout, request);
                  assertThat(got.floats).as("%s, %s", what, c).isEqualTo(want.floats);
                  assertThat(got.cached).as("%s, %s", what, c).isEqualTo(want.cached);
                  assertThat(got.reads).as("%s, %s", what, c).isLessThanOrEqualTo(want.reads);
                }
              }
            }
          }
        }
      }
    }
  }

  @Test
  void rowsSideBySideShareCalls() throws IOException {
    int n = 4000;
    int dim = 33;
    FeatureParams params = FeatureParams.plain(StoreLayout.ENCODING_F32, dim);
    SplittableRandom rnd = new SplittableRandom(5);
    byte[] rows = randomRows(rnd, n, dim, StoreLayout.ENCODING_F32);
    long[] starts = {0, n};
    int[] request = new int[n];
    for (int i = 0; i < n; i++) {
      request[i] = n - 1 - i;
    }
    Path[] paths = write(rows, params.rowBytes(), starts, RowLayout.IDENTITY, "dense");
    for (boolean direct : new boolean[] {false, true}) {
      Read merged =
          read(paths, starts, params, direct, ReadCoalescing.DIRECT, RowLayout.IDENTITY, request);
      // 528 KB of rows in calls of at most 256 KiB
      assertThat(merged.reads).as("direct %b", direct).isLessThanOrEqualTo(4);
      assertThat(merged.floats).isEqualTo(expected(rows, params, request));
    }
  }

  /**
   * A sparse file of 20 M f16 rows of 128 columns (5.1 GB, papers100M's row size; only the rows
   * written take disk): rows on both sides of byte 2^31 and 2^32 and the last row come back bit for
   * bit, merged or one read per row, with and without {@code O_DIRECT}; unwritten rows read as 0.
   */
  @Test
  void rowsPastTwoToTheThirtyFirstBytesAreReadAtTheirOffsets() throws IOException {
    int n = 20_000_000;
    int dim = 128;
    FeatureParams params = FeatureParams.plain(StoreLayout.ENCODING_F16, dim);
    int rowBytes = params.rowBytes();
    int[] written = {
      0,
      (int) ((1L << 31) / rowBytes) - 1,
      (int) ((1L << 31) / rowBytes),
      (int) ((1L << 32) / rowBytes) + 1,
      n - 2,
      n - 1
    };
    SplittableRandom rnd = new SplittableRandom(17);
    byte[] rows = randomRows(rnd, written.length, dim, StoreLayout.ENCODING_F16);
    Path file = tmp.resolve("sparse.feat");
    try (java.nio.channels.FileChannel ch =
        java.nio.channels.FileChannel.open(
            file,
            java.nio.file.StandardOpenOption.CREATE_NEW,
            java.nio.file.StandardOpenOption.WRITE)) {
      for (int i = 0; i < written.length; i++) {
        ch.write(
            ByteBuffer.wrap(rows, i * rowBytes, rowBytes),
            StoreLayout.HEADER_BYTES + (long) written[i] * rowBytes);
      }
    }
    assertThat(Files.size(file)).isGreaterThan(1L << 32);
    int[] request = {n - 1, written[2], written[1] - 1, written[3], written[1], 0, written[4], 5};
    for (boolean direct : new boolean[] {false, true}) {
      Read want =
          read(
              new Path[] {file},
              new long[] {0, n},
              params,
              direct,
              ReadCoalescing.ROW_AT_A_TIME,
              RowLayout.IDENTITY,
              request);
      for (ReadCoalescing c : MERGED) {
        Read got =
            read(
                new Path[] {file},
                new long[] {0, n},
                params,
                direct,
                c,
                RowLayout.IDENTITY,
                request);
        assertThat(got.floats).as("direct %b, %s", direct, c).isEqualTo(want.floats);
      }
      for (int i = 0; i < request.length; i++) {
        int k = java.util.Arrays.binarySearch(written, request[i]);
        int[] row = Arrays.copyOfRange(want.floats, i * dim, (i + 1) * dim);
        int[] expect =
            k >= 0
                ? Arrays.copyOfRange(expected(rows, params, new int[] {k}), 0, dim)
                : new int[dim];
        assertThat(row).as("row %d, direct %b", request[i], direct).isEqualTo(expect);
      }
    }
  }

  /** A batch's rows: the first and last rows, repeats, and random rows, in random order. */
  private static List<int[]> requests(SplittableRandom rnd, int n) {
    List<int[]> out = new ArrayList<>();
    out.add(new int[] {n - 1});
    out.add(new int[] {0, n - 1, 0});
    int[] r = new int[700];
    for (int i = 0; i < r.length; i++) {
      r[i] = i < 4 ? new int[] {0, 1, n - 2, n - 1}[i] : rnd.nextInt(i % 3 == 0 ? 50 : n);
    }
    shuffle(rnd, r);
    out.add(r);
    return out;
  }

  private record Read(int[] floats, int[] cached, long reads) {}

  private static Read read(
      Path[] paths,
      long[] starts,
      FeatureParams params,
      boolean direct,
      ReadCoalescing c,
      RowLayout layout,
      int[] request) {
    int dim = params.dim;
    int k = request.length;
    float[] out = new float[k * dim + 5];
    Arrays.fill(out, Float.NaN);
    int[] outPos = new int[k];
    int[] slots = new int[k];
    boolean[] taken =
        new boolean[starts[starts.length - 1] > 0 ? (int) starts[starts.length - 1] : 1];
    int nSlots = 0;
    for (int i = 0; i < k; i++) {
      outPos[i] = 5 + i * dim;
      // a slot for each row's first request (the I/O threads write distinct slots)
      slots[i] = taken[request[i]] ? -1 : nSlots++;
      taken[request[i]] = true;
    }
    try (FeatureFiles f = FeatureFiles.of(paths, starts, params, 3, direct, c, layout)) {
      RowPages pages = f.pages(Math.max(1, nSlots), PageMemory.HEAP);
      f.read(request, outPos, slots, k, out, pages);
      float[] cached = new float[nSlots * dim];
      for (int i = 0; i < k; i++) {
        if (slots[i] >= 0) {
          pages.decode(slots[i], cached, slots[i] * dim);
        }
      }
      assertThat(f.rowsRead()).isEqualTo(k);
      return new Read(bits(Arrays.copyOfRange(out, 5, out.length)), bits(cached), f.reads());
    }
  }

  private static int[] expected(byte[] rows, FeatureParams params, int[] request) {
    RowDecoder d = RowDecoder.of(params);
    ByteBuffer b = ByteBuffer.wrap(rows).order(ByteOrder.LITTLE_ENDIAN);
    float[] out = new float[request.length * params.dim];
    for (int i = 0; i < request.length; i++) {
      d.decode(b, request[i] * params.rowBytes(), out, i * params.dim);
    }
    return bits(out);
  }

  private static int[] bits(float[] f) {
    int[] b = new int[f.length];
    for (int i = 0; i < f.length; i++) {
      b[i] = Float.floatToRawIntBits(f[i]);
    }
    return b;
  }

  /** Finite values of every sign and magnitude, encoded as {@code enc} stores them. */
  private static byte[] randomRows(SplittableRandom rnd, int n, int dim, int enc) {
    ByteBuffer b =
        ByteBuffer.allocate(n * FeatureParams.plain(enc, dim).rowBytes())
            .order(ByteOrder.LITTLE_ENDIAN);
    for (long i = 0; i < (long) n * dim; i++) {
      if (enc == StoreLayout.ENCODING_F32) {
        b.putFloat((float) ((rnd.nextDouble() - 0.5) * Math.pow(2, rnd.nextInt(-20, 20))));
      } else {
        b.putShort((short) (rnd.nextInt(1 << 16) & 0xFBFF)); // exponent below all-ones: finite
      }
    }
    return b.array();
  }

  private Path[] write(byte[] rows, int rowBytes, long[] starts, RowLayout layout, String name)
      throws IOException {
    int n = (int) starts[starts.length - 1];
    int[] rowAt = layout.rowsByPosition(n);
    Path[] paths = new Path[starts.length - 1];
    for (int p = 0; p < paths.length; p++) {
      int from = (int) starts[p];
      int to = (int) starts[p + 1];
      byte[] bytes = new byte[StoreLayout.HEADER_BYTES + (to - from) * rowBytes];
      for (int pos = from; pos < to; pos++) {
        System.arraycopy(
            rows,
            rowAt[pos] * rowBytes,
            bytes,
            StoreLayout.HEADER_BYTES + (pos - from) * rowBytes,
            rowBytes);
      }
      paths[p] = Files.write(tmp.resolve(name + "-" + p + ".feat"), bytes);
    }
    return paths;
  }

  private static int[] permutation(SplittableRandom rnd, int n) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    shuffle(rnd, p);
    return p;
  }

  private static void shuffle(SplittableRandom rnd, int[] a) {
    for (int i = a.length - 1; i > 0; i--) {
      int j = rnd.nextInt(i + 1);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }
}
