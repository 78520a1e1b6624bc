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
}
