package io.fanout.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.InvalidInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A shard manifest whose part paths leave the shard directory is refused when read. */
class ShardManifestPathsTest {
  @TempDir Path tmp;

  private static ShardManifest manifest(String partPath) {
    ShardManifest m = new ShardManifest();
    m.requestFingerprint = "r";
    m.epochs = 1;
    m.partsPerEpoch = 1;
    m.features = "none";
    ShardManifest.Part p = new ShardManifest.Part();
    p.path = partPath;
    p.bytes = 1;
    m.files.add(p);
    return m;
  }

  @Test
  void partPathsOutsideTheShardDirectoryAreRefused() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("shards"));
    manifest("epoch-0000/part-00000.parquet").write(dir.resolve(ShardManifest.FILE));
    assertThat(ShardManifest.read(dir).files.get(0).path)
        .isEqualTo("epoch-0000/part-00000.parquet");
    for (String bad :
        new String[] {"/etc/passwd", "../../../../etc/passwd", "epoch-0000/../../x", "./a"}) {
      manifest(bad).write(dir.resolve(ShardManifest.FILE));
      assertThatThrownBy(() -> ShardManifest.read(dir))
          .as(bad)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining(dir.resolve(ShardManifest.FILE).toString())
          .hasMessageContaining("outside the shard directory")
          .hasMessageContaining(bad);
    }
  }
}
