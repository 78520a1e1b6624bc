package io.fanout.bench;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.cli.CliRun.Result;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code bin/fanout --help} finds the bench module's commands and lists them after the jobs'. */
class BenchCommandsTest {
  @Test
  void helpListsEveryCommandInItsOrder() {
    Result r = cli("--help");
    assertThat(r.code()).isZero();
    List<String> names = new ArrayList<>();
    boolean listing = false;
    for (String line : r.err().split("\n")) {
      if (line.equals("commands:")) {
        listing = true;
      } else if (listing && line.startsWith("  ")) {
        names.add(line.trim().split("\\s+")[0]);
      } else if (listing && !names.isEmpty()) {
        break;
      }
    }
    assertThat(names)
        .containsExactly(
            "prepare",
            "quantize",
            "inspect",
            "generate",
            "sample",
            "train",
            "evaluate",
            "infer",
            "quickstart",
            "bench-prepare",
            "bench-partition",
            "bench-sample",
            "bench-train",
            "bench-features",
            "bench-cache",
            "bench-out-of-core",
            "bench-allreduce");
  }

  @Test
  void aBenchCommandRunsThroughTheCli() {
    Result r = cli("bench-allreduce", "--help");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("bench-allreduce");
  }
}
