package io.fanout.jobs.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a user sees on stderr, the whole of it, from a separate {@code bin/fanout} process with its
 * logging configuration: a failure found in a Spark task is one line, with no copy of its trace
 * from Spark's loggers, and a heap too small for Spark names the setting {@code bin/fanout} takes.
 */
@Tag("slow")
class UserErrorsInAProcessTest {
  @TempDir Path tmp;

  @Test
  void aDuplicateVertexIdFoundInATaskIsOneLineWithNoTrace() throws Exception {
    Path v = Files.writeString(tmp.resolve("v.csv"), "id,label\n1,0\n2,1\n1,1\n");
    Path e = Files.writeString(tmp.resolve("e.csv"), "src,dst\n1,2\n");
    Path out = tmp.resolve("store");
    ChildCli.Result r =
        ChildCli.run(
            "1g",
            List.of(
                "prepare",
                "--format",
                "csv",
                "--vertices",
                v.toString(),
                "--edges",
                e.toString(),
                "--output",
                out.toString()));
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(ChildCli.fanoutLines(r.err()))
        .as(r.err())
        .containsExactly(
            "fanout prepare: error: vertices "
                + v
                + ": column 'id': duplicate vertex id 1 (appears at least twice); expected unique"
                + " vertex ids");
    assertThat(out).doesNotExist();
  }

  @Test
  void aHeapTooSmallForSparkNamesFanoutJavaOpts() throws Exception {
    Path out = tmp.resolve("store");
    ChildCli.Result r =
        ChildCli.run(
            "300m",
            List.of(
                "prepare",
                "--vertices",
                tmp.resolve("v.parquet").toString(),
                "--edges",
                tmp.resolve("e.parquet").toString(),
                "--output",
                out.toString()));
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    List<String> lines = ChildCli.fanoutLines(r.err());
    assertThat(lines).as(r.err()).hasSize(1);
    assertThat(lines.get(0))
        .startsWith("fanout prepare: error: the Java heap is ")
        .contains("FANOUT_JAVA_OPTS=-Xmx");
    assertThat(out).doesNotExist();
  }
}
