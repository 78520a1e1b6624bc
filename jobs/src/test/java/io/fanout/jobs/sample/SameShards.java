package io.fanout.jobs.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.shard.ShardManifest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * The check that sampling modes and thread counts do not change a byte: shard folders hold the same
 * files with the same bytes, their manifests (which name their own output and mode) aside.
 */
final class SameShards {
  private SameShards() {}

  /**
   * Asserts that {@code reference} holds at least one shard file and that each of {@code others}
   * holds exactly its files, byte for byte, the manifests aside.
   *
   * @return the files compared (relative path -> bytes), without the manifest
   */
  static Map<String, byte[]> assertByteIdentical(Path reference, Path... others)
      throws IOException {
    Map<String, byte[]> want = SampleFixtures.files(reference);
    want.remove(ShardManifest.FILE);
    assertThat(want).as("shard files of %s", reference).isNotEmpty();
    for (Path other : others) {
      Map<String, byte[]> got = SampleFixtures.files(other);
      got.remove(ShardManifest.FILE);
      assertThat(got.keySet()).as("shard files of %s", other).isEqualTo(want.keySet());
      for (String k : want.keySet()) {
        assertThat(got.get(k)).as("%s of %s and of %s", k, other, reference).isEqualTo(want.get(k));
      }
    }
    return want;
  }
}
