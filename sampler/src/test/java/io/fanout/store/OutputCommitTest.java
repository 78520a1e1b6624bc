package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.shard.ShardManifest;
import io.fanout.shard.ShardOutput;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one commit protocol, {@link OutputCommit}, on both kinds of output: a graph store ({@link
 * StoreOutput}: fixed directories, request = input fingerprint and options) and a shard directory
 * ({@link ShardOutput}: {@code epoch-NNNN/} directories, request = one fingerprint).
 */
class OutputCommitTest {
  @TempDir Path tmp;

  private static final OutputCommit<StoreManifest> STORE = StoreOutput.COMMIT;
  private static final OutputCommit<ShardManifest> SHARDS = ShardOutput.COMMIT;

  private static StoreManifest publishStore(
      Path store, String fingerprint, Map<String, String> opts, int vertices, boolean overwrite) {
    Path staging = STORE.begin(store, "run" + vertices);
    try (NodesFileWriter w =
        new NodesFileWriter(staging.resolve(StoreLayout.nodesFile(0)), 0, 0, vertices)) {
      for (int i = 0; i < vertices; i++) {
        w.write(i, StoreLayout.SPLIT_TRAIN);
      }
      w.finish();
    }
    try (CsrFileWriter w =
        new CsrFileWriter(staging.resolve(StoreLayout.csrFile(0)), 0, 0, vertices)) {
      for (int i = 0; i < vertices; i++) {
        w.endRow();
      }
      w.finish();
    }
    StoreManifest m = new StoreManifest();
    m.vertices = vertices;
    m.partitions = 1;
    m.partitionTable.add(new StoreManifest.Partition(0, 0, vertices, 0));
    m.inputFingerprint = fingerprint;
    m.options.putAll(opts);
    m.files = StoreOutput.files(staging);
    STORE.publish(store, staging, m, overwrite);
    return m;
  }

  private static String storeRequest(String fingerprint, Map<String, String> opts) {
    return StoreOutput.request(fingerprint, opts);
  }

  private static ShardManifest shardManifest(String fingerprint, Path staging, String... parts)
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
  void storePublishesWithManifestLastAndPlansReruns() throws Exception {
    Path store = tmp.resolve("store");
    Map<String, String> opts = Map.of("undirected", "true");
    String fp = storeRequest("fp", opts);
    assertThat(STORE.plan(store, fp, "this", false)).isEqualTo(OutputCommit.Plan.WRITE);
    StoreManifest m = publishStore(store, "fp", opts, 3, false);
    assertThat(m.files)
        .extracting(f -> f.path)
        .containsExactly("csr/part-00000.csr", "nodes/part-00000.nodes");
    assertThat(m.file("nodes/part-00000.nodes").bytes).isEqualTo(64 + 5 * 3);
    assertThat(names(store)).containsExactly("csr", "manifest.json", "nodes");
    assertThat(StoreManifest.read(store).toJson()).isEqualTo(m.toJson());

    assertThat(STORE.plan(store, fp, "this", false)).isEqualTo(OutputCommit.Plan.SKIP);
    assertThat(STORE.plan(store, fp, "this", true)).isEqualTo(OutputCommit.Plan.REPLACE);
    Map<String, String> otherOpts = Map.of("undirected", "false");
    assertThatThrownBy(
            () ->
                STORE.plan(
                    store,
                    storeRequest("fp", otherOpts),
                    StoreOutput.describe("fp", otherOpts),
                    false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("another request")
        .hasMessageContaining("{undirected=true}")
        .hasMessageContaining("{undirected=false}")
        .hasMessageContaining("--overwrite");
    assertThatThrownBy(() -> STORE.plan(store, storeRequest("other", opts), "other", false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("inputs fp");
    assertThatThrownBy(() -> publishStore(store, "fp", opts, 3, false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("already there");

    publishStore(store, "fp2", opts, 5, true);
    assertThat(StoreManifest.read(store).vertices).isEqualTo(5);
    assertThat(Files.size(store.resolve(StoreLayout.nodesFile(0)))).isEqualTo(64 + 25);
    assertThat(names(store)).containsExactly("csr", "manifest.json", "nodes");

    // A listed file that changed size: not complete, so no skip.
    Files.write(store.resolve(StoreLayout.csrFile(0)), new byte[1]);
    String fp2 = storeRequest("fp2", opts);
    assertThatThrownBy(() -> STORE.plan(store, fp2, "this", false))
        .hasMessageContaining("missing or changed files");
    assertThat(STORE.plan(store, fp2, "this", true)).isEqualTo(OutputCommit.Plan.REPLACE);
  }

  @Test
  void emptyAndSingleVertexStoresPublish() throws Exception {
    for (int n : new int[] {0, 1}) {
      Path store = tmp.resolve("store" + n);
      StoreManifest m = publishStore(store, "fp", Map.of(), n, false);
      assertThat(StoreManifest.read(store).vertices).isEqualTo(n);
      assertThat(m.files).hasSize(2);
      assertThat(STORE.plan(store, storeRequest("fp", Map.of()), "this", false))
          .isEqualTo(OutputCommit.Plan.SKIP);
    }
  }

  @Test
  void leftoverStagingIsRemovedAndAnUnreadableManifestNeedsOverwrite() throws Exception {
    Path store = tmp.resolve("store");
    Path dead = STORE.begin(store, "dead");
    Files.writeString(dead.resolve("half"), "x");
    String fp = storeRequest("fp", Map.of());
    assertThat(STORE.plan(store, fp, "this", false)).isEqualTo(OutputCommit.Plan.WRITE);
    assertThatThrownBy(() -> StoreManifest.read(store))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("incomplete store");
    publishStore(store, "fp", Map.of(), 2, false);
    assertThat(dead).doesNotExist();

    Files.writeString(store.resolve(StoreLayout.MANIFEST), "{not json");
    assertThatThrownBy(() -> STORE.plan(store, fp, "this", false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("pass --overwrite to replace what is there");
    assertThat(STORE.plan(store, fp, "this", true)).isEqualTo(OutputCommit.Plan.REPLACE);
  }

  @Test
  void shardsPublishWithManifestLastDropStrayFilesAndPlanReruns() throws Exception {
    Path out = tmp.resolve("out");
    assertThat(SHARDS.plan(out, "a", "a", false)).isEqualTo(OutputCommit.Plan.WRITE);
    Path crashed = SHARDS.begin(out, "crashed"); // a leftover of a crashed run
    Path staging = out.resolve(OutputCommit.STAGING_PREFIX + "run");
    Files.createDirectories(staging);
    ShardManifest m = shardManifest("a", staging, "epoch-0000/part-00000.parquet");
    // a failed task attempt's leftover: not listed, so not published
    Files.write(staging.resolve("epoch-0000/.part-00001.parquet.7-9.tmp"), new byte[3]);
    assertThat(SHARDS.plan(out, "a", "a", false)).isEqualTo(OutputCommit.Plan.WRITE);
    SHARDS.publish(out, staging, m, false);
    assertThat(names(out)).containsExactly("epoch-0000", "manifest.json");
    assertThat(names(out.resolve("epoch-0000"))).containsExactly("part-00000.parquet");
    assertThat(crashed).doesNotExist();
    assertThat(ShardManifest.read(out).requestFingerprint).isEqualTo("a");
    assertThat(SHARDS.plan(out, "a", "a", false)).isEqualTo(OutputCommit.Plan.SKIP);
    assertThat(SHARDS.plan(out, "a", "a", true)).isEqualTo(OutputCommit.Plan.REPLACE);
    assertThatThrownBy(() -> SHARDS.plan(out, "b", "request b", false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("another request")
        .hasMessageContaining("request b")
        .hasMessageContaining("--overwrite");
    // A listed file that went missing: not complete, so no skip.
    Files.delete(out.resolve("epoch-0000/part-00000.parquet"));
    assertThatThrownBy(() -> SHARDS.plan(out, "a", "a", false))
        .hasMessageContaining("missing or changed files");
    // Replacing drops the old epochs.
    Path next = SHARDS.begin(out, "next");
    ShardManifest m2 = shardManifest("b", next, "epoch-0001/part-00000.parquet");
    SHARDS.publish(out, next, m2, true);
    assertThat(names(out)).containsExactly("epoch-0001", "manifest.json");
    // No parts at all.
    Path none = SHARDS.begin(out, "none");
    SHARDS.publish(out, none, shardManifest("c", none), true);
    assertThat(names(out)).containsExactly("manifest.json");
    assertThat(SHARDS.plan(out, "c", "c", false)).isEqualTo(OutputCommit.Plan.SKIP);
  }

  @Test
  void foreignDirectoriesAreNeverTouched() throws Exception {
    Path home = tmp.resolve("home");
    Files.createDirectories(home);
    Files.writeString(home.resolve("thesis.tex"), "precious");
    assertThatThrownBy(() -> STORE.plan(home, "fp", "this", true))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("thesis.tex")
        .hasMessageContaining("graph store");
    assertThatThrownBy(() -> SHARDS.plan(home, "a", "a", true))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("thesis.tex")
        .hasMessageContaining("epoch-NNNN/");
    // Each kind refuses the other's directories.
    Files.delete(home.resolve("thesis.tex"));
    Files.createDirectories(home.resolve("epoch-0000"));
    assertThatThrownBy(() -> STORE.plan(home, "fp", "this", true)).hasMessageContaining("epoch");
    Path file = tmp.resolve("file");
    Files.write(file, new byte[1]);
    assertThatThrownBy(() -> SHARDS.plan(file, "a", "a", false))
        .hasMessageContaining("not a directory");
    assertThatThrownBy(() -> STORE.plan(file, "a", "a", false))
        .hasMessageContaining("not a directory");
  }

  @Test
  void abortRemovesTheStagingDirectoryAndNeverThrows() throws Exception {
    Path out = tmp.resolve("aborted");
    Path staging = SHARDS.begin(out, "x");
    Files.write(staging.resolve("part"), new byte[4]);
    SHARDS.abort(staging);
    assertThat(staging).doesNotExist();
    SHARDS.abort(staging); // already gone
    assertThat(names(out)).isEmpty();
  }
}
