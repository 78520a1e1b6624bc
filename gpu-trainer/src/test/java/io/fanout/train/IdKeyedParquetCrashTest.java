package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Predictions and embeddings are replaced by two renames (old output aside, new one in); a run
 * killed between them leaves the old output aside and none in place. The next run puts it back.
 */
class IdKeyedParquetCrashTest {
  @TempDir Path tmp;

  @Test
  void theOldOutputIsPutBackAfterAKillBetweenTheTwoRenames() throws Exception {
    Path out = tmp.resolve("pred");
    Path aside = Files.createDirectories(tmp.resolve(".pred.old-1234"));
    Files.writeString(aside.resolve(IdKeyedParquet.SUCCESS), "{\"rows\":3,\"request\":\"r\"}");
    Files.write(aside.resolve("part-00000.parquet"), new byte[] {1, 2, 3});
    Path staging = Files.createDirectories(tmp.resolve(".pred.staging-5678"));
    Files.write(staging.resolve("part-00000.parquet"), new byte[] {9});

    assertThat(IdKeyedParquet.rowsToKeep(out, "r", false, "predictions")).isEqualTo(3);
    assertThat(out.resolve("part-00000.parquet")).hasBinaryContent(new byte[] {1, 2, 3});
    try (Stream<Path> s = Files.list(tmp)) {
      assertThat(s.map(p -> p.getFileName().toString())).containsExactly("pred");
    }
  }

  @Test
  void anIncompleteAsideFolderIsNotPutBack() throws Exception {
    Path out = tmp.resolve("emb");
    Files.createDirectories(tmp.resolve(".emb.old-1"));
    assertThat(IdKeyedParquet.rowsToKeep(out, "r", false, "embeddings")).isEqualTo(-1);
    assertThat(out).doesNotExist();
    try (Stream<Path> s = Files.list(tmp)) {
      assertThat(s).isEmpty();
    }
  }
}
