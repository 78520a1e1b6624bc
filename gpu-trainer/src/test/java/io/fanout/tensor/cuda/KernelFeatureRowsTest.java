package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.store.StoreLayout;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.RowEncoding;
import io.fanout.tensor.RowFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelFeatureRowsTest {
  @TempDir Path tmp;

  @Test
  void chunksCoverEveryRowOnceWithinTheSizeLimit() {
    long[] starts = {0, 10, 10, 35};
    List<KernelFeatureRows.Chunk> plan = KernelFeatureRows.plan(starts, 40, 400);
    assertThat(plan)
        .containsExactly(
            new KernelFeatureRows.Chunk(0, 0, 10),
            new KernelFeatureRows.Chunk(2, 10, 10),
            new KernelFeatureRows.Chunk(2, 20, 10),
            new KernelFeatureRows.Chunk(2, 30, 5));
    assertThat(KernelFeatureRows.plan(new long[] {0, 3}, 1000, 10))
        .as("a row larger than the limit still gets a chunk of its own")
        .hasSize(3);
  }

  /** Rows gathered on the device from mapped files equal the rows written, across chunks. */
  @Tag("gpu")
  @Test
  void gatherReadsRowsStraightFromTheMappedFiles() throws IOException {
    GpuTests.assumeDevice();
    int dim = 7;
    long[] starts = {0, 100, 250};
    Path[] files = {tmp.resolve("part-00000.feat"), tmp.resolve("part-00001.feat")};
    for (int p = 0; p < 2; p++) {
      int rows = (int) (starts[p + 1] - starts[p]);
      ByteBuffer b =
          ByteBuffer.allocate(StoreLayout.HEADER_BYTES + 4 * rows * dim)
              .order(ByteOrder.LITTLE_ENDIAN);
      b.position(StoreLayout.HEADER_BYTES);
      for (int r = 0; r < rows; r++) {
        for (int j = 0; j < dim; j++) {
          b.putFloat(value(starts[p] + r, j));
        }
      }
      Files.write(files[p], b.array());
    }
    int[] ids = {0, 249, 100, 99, 17, 180, 17};
    try (CudaBackend be = new CudaBackend(-1)) {
      // 33 rows per chunk: chunk boundaries fall inside both files
      try (KernelFeatureRows z =
              KernelFeatureRows.ofFiles(
                  be,
                  new RowFiles(files, starts, StoreLayout.HEADER_BYTES, RowEncoding.f32(dim)),
                  33L * 4 * dim);
          IntTensor ti = be.allocInt(ids.length);
          FloatTensor out = be.allocFloat(ids.length * dim + 3)) {
        System.out.println("registered chunks: " + z.registeredChunks() + " of " + z.chunks());
        be.upload(ids, 0, ti, 0, ids.length);
        z.gather(ti, 0, ids.length, out, 3);
        float[] got = new float[ids.length * dim];
        be.download(out, 3, got, 0, got.length);
        for (int i = 0; i < ids.length; i++) {
          for (int j = 0; j < dim; j++) {
            assertThat(got[i * dim + j]).isEqualTo(value(ids[i], j));
          }
        }
      }
      be.pool().checkNoLeaks();
    }
  }

  private static float value(long row, int col) {
    return row * 100f + col;
  }
}
