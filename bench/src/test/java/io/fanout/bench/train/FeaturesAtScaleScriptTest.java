package io.fanout.bench.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench/features-at-scale.sh} refuses, with exit 2 and one line saying what is missing,
 * where it cannot set a memory limit, and rejects a bad LIMIT, before it builds or runs anything.
 */
class FeaturesAtScaleScriptTest {
  @TempDir Path tmp;

  private static final Path SCRIPT =
      Path.of("").toAbsolutePath().getParent().resolve("bench/features-at-scale.sh");

  private record Run(int code, String err) {}

  private static Run run(String cgroupRoot, String... args)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("bash", SCRIPT.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("FANOUT_CGROUP_ROOT", cgroupRoot);
    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    Process p = pb.start();
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Run(p.waitFor(), err);
  }

  @Test
  void refusesWithoutAMemoryController() throws Exception {
    Run r = run(tmp.resolve("none").toString(), "1G", "--num-vertices", "100");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .contains("no cgroup v1 memory controller at " + tmp.resolve("none"))
        .contains("memory.limit_in_bytes");
    assertThat(r.err().strip().lines()).hasSize(1);
  }

  @Test
  void rejectsABadLimit() throws Exception {
    Files.writeString(tmp.resolve("memory.limit_in_bytes"), "9223372036854771712\n");
    Run bad = run(tmp.toString(), "lots");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains("LIMIT must be bytes or a number with K, M or G");
    Run small = run(tmp.toString(), "1M");
    assertThat(small.code()).isEqualTo(2);
    assertThat(small.err()).contains("at least 64M");
    Run none = run(tmp.toString());
    assertThat(none.code()).isEqualTo(2);
    assertThat(none.err()).contains("usage:");
  }
}
