package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.store.Checksums;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The PTX in resources was generated from the CUDA sources as they are now: build-ptx.sh records
 * each source's SHA-256 in its PTX's first line, and every source has its PTX.
 */
class PtxUpToDateTest {
  private static final Path SOURCES = Path.of("src/main/cuda");
  private static final Pattern HEADER =
      Pattern.compile("^// fanout-source: (\\w+)\\.cu sha256=([0-9a-f]{64})$");

  @Test
  void everySourceHasItsCurrentPtx() throws IOException {
    TreeSet<String> names = new TreeSet<>();
    try (Stream<Path> s = Files.list(SOURCES)) {
      s.filter(p -> p.toString().endsWith(".cu")).forEach(p -> names.add(baseName(p)));
    }
    assertThat(names).isEqualTo(new TreeSet<>(PtxModules.KERNELS.keySet()));
    for (String name : names) {
      String sha = Checksums.sha256(Files.readAllBytes(SOURCES.resolve(name + ".cu")));
      String first = PtxModules.ptx(name).lines().findFirst().orElse("");
      Matcher m = HEADER.matcher(first);
      assertThat(m.matches()).as("first line of %s.ptx: %s", name, first).isTrue();
      assertThat(m.group(1)).isEqualTo(name);
      assertThat(m.group(2))
          .as("%s.ptx is stale: run gpu-trainer/src/main/cuda/build-ptx.sh", name)
          .isEqualTo(sha);
    }
  }

  private static String baseName(Path p) {
    String f = p.getFileName().toString();
    return f.substring(0, f.length() - ".cu".length());
  }
}
