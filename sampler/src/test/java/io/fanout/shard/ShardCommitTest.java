package io.fanout.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.InvalidInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardCommitTest {
  @TempDir Path dir;

  private static ShardManifest manifest(String fingerprint, Path staging, String... parts)
      throws Exception {
    ShardManifest m = new ShardManifest();
    m.requestFingerprint = fingerprint;
    m.epochs = 1;
    m.partsPerEpoch = parts.length;
    m.features = "none";
    for (String p : parts) {
      Path f = staging.resolve(p);
      Files.createDirectories(f.getParent());
      Files.write(f, p.getBytes());
      ShardManifest.Part e = new ShardManifest.Part();
      e.path = p;
      e.bytes = Files.size(f);
      m.files.add(e);
    }
    return m;
  }

  private static List<String> names(Path d) throws Exception {
    try (Stream<Path> s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void publishWritesTheManifestLastAndCleansUp() throws Exception {
    Path out = dir.resolve("out");
    assertThat(ShardCommit.plan(out, "a", false)).isEqualTo(ShardCommit.Plan.WRITE);
    Files.createDirectories(out);
    Path crashed = ShardCommit.newStaging(out); // a leftover of a crashed run
    Path staging = ShardCommit.newStaging(out);
    ShardManifest m = manifest("a", staging, "epoch-0000/part-00000.parquet");
    Files.write(staging.resolve("epoch-0000/.part-00001.parquet.7-9.tmp"), new byte[3]);
    assertThat(ShardCommit.plan(out, "a", false)).isEqualTo(ShardCommit.Plan.WRITE);
    ShardCommit.publish(out, staging, m);
    assertThat(names(out)).containsExactly("epoch-0000", "manifest.json");
    assertThat(names(out.resolve("epoch-0000"))).containsExactly("part-00000.parquet");
    assertThat(crashed).doesNotExist();
    assertThat(ShardManifest.read(out).requestFingerprint).isEqualTo("a");
    assertThat(ShardCommit.plan(out, "a", false)).isEqualTo(ShardCommit.Plan.SKIP);
    assertThat(ShardCommit.plan(out, "a", true)).isEqualTo(ShardCommit.Plan.REPLACE);
    assertThatThrownBy(() -> ShardCommit.plan(out, "b", false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--overwrite");
    // A listed file that went missing: not complete, so no skip.
    Files.delete(out.resolve("epoch-0000/part-00000.parquet"));
    assertThatThrownBy(() -> ShardCommit.plan(out, "a", false))
        .hasMessageContaining("missing or changed files");
    // Replacing drops the old epochs.
    Path next = ShardCommit.newStaging(out);
    ShardManifest m2 = manifest("b", next, "epoch-0001/part-00000.parquet");
    m2.epochs = 1;
    ShardCommit.publish(out, next, m2);
    assertThat(names(out)).containsExactly("epoch-0001", "manifest.json");
  }

  @Test
  void foreignFilesAreNeverTouched() throws Exception {
    Path out = dir.resolve("mine");
    Files.createDirectories(out);
    Files.write(out.resolve("notes.txt"), new byte[1]);
    assertThatThrownBy(() -> ShardCommit.plan(out, "a", true))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("notes.txt");
    Path file = dir.resolve("file");
    Files.write(file, new byte[1]);
    assertThatThrownBy(() -> ShardCommit.plan(file, "a", false))
        .hasMessageContaining("not a directory");
  }
}
