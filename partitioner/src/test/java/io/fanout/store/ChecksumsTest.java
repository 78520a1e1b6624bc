package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChecksumsTest {
  @TempDir Path tmp;

  @Test
  void severalFilesAreCheckedInParallelInTheOrderGiven() throws Exception {
    SplittableRandom r = new SplittableRandom(3);
    List<Path> files = new ArrayList<>();
    for (int size : new int[] {0, 5, 3 << 20, 17, 1 << 20, 1}) {
      byte[] b = new byte[size];
      r.nextBytes(b);
      Path f = tmp.resolve("f" + files.size());
      Files.write(f, b);
      files.add(f);
    }
    String[] crcs = Checksums.crc32c(files);
    assertThat(crcs).hasSize(files.size());
    for (int i = 0; i < crcs.length; i++) {
      assertThat(crcs[i]).isEqualTo(Checksums.crc32c(files.get(i))).hasSize(8);
    }
    assertThat(crcs[0]).isEqualTo("00000000");
    assertThat(Checksums.crc32c(List.of())).isEmpty();

    files.add(tmp.resolve("missing"));
    assertThatThrownBy(() -> Checksums.crc32c(files))
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageContaining("missing");
  }
}
