package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.shard.ShardManifest;
import io.fanout.store.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trainer never reads a shard part through a symbolic link that leaves the shard directory. */
class ShardSetPathsTest {
  @TempDir Path tmp;

  @Test
  void aPartBehindALinkOutOfTheShardDirectoryIsRefused() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("shards"));
    Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
    Files.write(elsewhere.resolve("part-00000.parquet"), new byte[] {1});
    Files.createSymbolicLink(dir.resolve("epoch-0000"), elsewhere);
    ShardManifest m = new ShardManifest();
    m.requestFingerprint = "r";
    m.epochs = 1;
    m.partsPerEpoch = 1;
    m.features = "none";
    ShardManifest.Part p = new ShardManifest.Part();
    p.path = "epoch-0000/part-00000.parquet";
    p.bytes = 1;
    m.files.add(p);
    Files.writeString(dir.resolve(ShardManifest.FILE), m.toJson(), StandardCharsets.UTF_8);
    assertThatThrownBy(() -> ShardSet.open(dir))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("outside the shard directory")
        .hasMessageContaining("symbolic link");
  }
}
