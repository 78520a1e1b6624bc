package io.fanout.bench.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NpyFilesTest {
  @TempDir Path dir;

  @Test
  void roundTripsWithNumpysHeaderLayout() throws Exception {
    float[] f = {1.5f, -2f, Float.MIN_VALUE, 0f};
    int[] i = {7, -1, Integer.MAX_VALUE};
    NpyFiles.writeFloats(dir.resolve("f.npy"), f, 3);
    NpyFiles.writeInts(dir.resolve("i.npy"), i, 3);
    assertThat(NpyFiles.readFloats(dir.resolve("f.npy")))
        .containsExactly(1.5f, -2f, Float.MIN_VALUE);
    assertThat(NpyFiles.readInts(dir.resolve("i.npy"))).containsExactly(7, -1, Integer.MAX_VALUE);
    byte[] raw = Files.readAllBytes(dir.resolve("f.npy"));
    int headerLen = (raw[8] & 0xff) | (raw[9] & 0xff) << 8;
    assertThat((10 + headerLen) % 64).isZero(); // the data starts 64-byte aligned
    assertThat(raw.length).isEqualTo(10 + headerLen + 12);
    String header = new String(raw, 10, headerLen, StandardCharsets.US_ASCII);
    assertThat(header)
        .startsWith("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }")
        .endsWith("\n");
    NpyFiles.writeInts(dir.resolve("empty.npy"), i, 0);
    assertThat(NpyFiles.readInts(dir.resolve("empty.npy"))).isEmpty();
  }

  @Test
  void rejectsOtherFilesAndTypes() throws Exception {
    NpyFiles.writeInts(dir.resolve("i.npy"), new int[] {1}, 1);
    assertThatThrownBy(() -> NpyFiles.readFloats(dir.resolve("i.npy")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("i.npy: expected a one-dimensional <f4 array");
    Files.writeString(dir.resolve("x.npy"), "hello");
    assertThatThrownBy(() -> NpyFiles.readInts(dir.resolve("x.npy")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("x.npy: not a");
    byte[] raw = Files.readAllBytes(dir.resolve("i.npy"));
    Files.write(dir.resolve("short.npy"), java.util.Arrays.copyOf(raw, raw.length - 2));
    assertThatThrownBy(() -> NpyFiles.readInts(dir.resolve("short.npy")))
        .hasMessageContaining("header says 1 elements but 2 bytes follow");
  }

  /** A matrix larger than one streaming chunk comes back bit for bit, with numpy's 2-D header. */
  @Test
  void roundTripsAMatrixInChunks() throws Exception {
    int rows = 70_001;
    int cols = 61; // 17 MB: more than one 16 MiB chunk
    float[] a = new float[rows * cols + 5];
    for (int i = 0; i < a.length; i++) {
      a[i] = i * 0.5f - 3f;
    }
    Path f = dir.resolve("features.npy");
    NpyFiles.writeMatrix(f, a, rows, cols);
    byte[] head = new byte[128];
    try (var in = Files.newInputStream(f)) {
      in.readNBytes(head, 0, head.length);
    }
    assertThat(new String(head, 10, 70, StandardCharsets.US_ASCII))
        .startsWith("{'descr': '<f4', 'fortran_order': False, 'shape': (70001, 61), }");
    NpyFiles.FloatMatrix m = NpyFiles.readMatrix(f);
    assertThat(m.rows()).isEqualTo(rows);
    assertThat(m.cols()).isEqualTo(cols);
    assertThat(m.data()).isEqualTo(java.util.Arrays.copyOf(a, rows * cols));
    assertThat(Files.size(f) % 4).isZero();
    assertThatThrownBy(() -> NpyFiles.readFloats(f))
        .hasMessageContaining("expected a one-dimensional <f4 array");
    NpyFiles.writeFloats(dir.resolve("v.npy"), a, 3);
    assertThatThrownBy(() -> NpyFiles.readMatrix(dir.resolve("v.npy")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("expected a two-dimensional <f4 array");
    byte[] raw = Files.readAllBytes(f);
    Files.write(dir.resolve("cut.npy"), java.util.Arrays.copyOf(raw, raw.length - 4));
    assertThatThrownBy(() -> NpyFiles.readMatrix(dir.resolve("cut.npy")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("header says 70001 x 61");
  }
}
