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
 * StoreOutput}: request = input fingerprint and options) and a shard directory ({@link
 * ShardOutput}: request = one fingerprint). Each run writes a version folder {@code v-NNNN} and
 * publishes it by renaming its manifest into place. {@link OutputCommitCrashTest} kills the writer
 * at every step.
 */
class OutputCommitTest {
  @TempDir Path tmp;

  private static final OutputCommit<StoreManifest> STORE = StoreOutput.COMMIT;
  private static final OutputCommit<ShardManifest> SHARDS = ShardOutput.COMMIT;

  private static StoreManifest publishStore(
      Path store, String fingerprint, Map<String, String> opts, int vertices, boolean overwrite) {
    OutputCommit.Run run = STORE.begin(store);
    StoreManifest m = writeStore(run.dir(), vertices);
    m.inputFingerprint = fingerprint;
    m.options.putAll(opts);
    try {
      STORE.publish(run, m, overwrite);
    } catch (RuntimeException e) {
      STORE.abort(run);
      throw e;
    }
    return m;
  }

  /**
   * Writes the files of a one-partition store of {@code vertices} vertices without edges into
   * {@code dir} and returns its manifest, files listed.
   */
  static StoreManifest writeStore(Path dir, int vertices) {
    try (NodesFileWriter w =
        new NodesFileWriter(dir.resolve(StoreLayout.nodesFile(0)), 0, 0, vertices)) {
      for (int i = 0; i < vertices; i++) {
        w.write(i, StoreLayout.SPLIT_TRAIN);
      }
      w.finish();
    }
    try (CsrFileWriter w = new CsrFileWriter(dir.resolve(StoreLayout.csrFile(0)), 0, 0, vertices)) {
      for (int i = 0; i < vertices; i++) {
        w.endRow();
      }
      w.finish();
    }
    StoreManifest m = new StoreManifest();
    m.vertices = vertices;
    m.partitions = 1;
    m.partitionTable.add(new StoreManifest.Partition(0, 0, vertices, 0));
    m.files = StoreOutput.files(dir);
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
    assertThat(m.dataDir).isEqualTo("v-0001");
    assertThat(names(store)).containsExactly("_publish.lock", "manifest.json", "v-0001");
    assertThat(names(store.resolve("v-0001"))).containsExactly("csr", "nodes");
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
    assertThatThrownBy(() -> publishStore(store, "other", opts, 3, false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("pass --overwrite");
    assertThat(names(store)).containsExactly("_publish.lock", "manifest.json", "v-0001");

    publishStore(store, "fp2", opts, 5, true);
    StoreManifest now = StoreManifest.read(store);
    assertThat(now.vertices).isEqualTo(5);
    assertThat(now.dataDir).isEqualTo("v-0002");
    assertThat(Files.size(now.dataRoot(store).resolve(StoreLayout.nodesFile(0))))
        .isEqualTo(64 + 25);
    assertThat(names(store)).containsExactly("_publish.lock", "manifest.json", "v-0002");

    // A listed file that changed size: not complete, so no skip.
    Files.write(now.dataRoot(store).resolve(StoreLayout.csrFile(0)), new byte[1]);
    String fp2 = storeRequest("fp2", opts);
    assertThatThrownBy(() -> STORE.plan(store, fp2, "this", false))
        .hasMessageContaining("missing or changed files");
    assertThat(STORE.plan(store, fp2, "this", true)).isEqualTo(OutputCommit.Plan.REPLACE);
  }

  @Test
  void aSecondWriterIsRefusedWhileTheFirstRunsAndFreeAfterIt() throws Exception {
    Path store = tmp.resolve("store");
    String fp = storeRequest("fp", Map.of());
    assertThat(STORE.plan(store, fp, "this", false)).isEqualTo(OutputCommit.Plan.WRITE);
    OutputCommit.Run first = STORE.begin(store);
    assertThatThrownBy(() -> STORE.begin(store))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("graph store")
        .hasMessageContaining("another writer")
        .hasMessageContaining("pid " + ProcessHandle.current().pid());
    STORE.abort(first);
    publishStore(store, "fp", Map.of(), 2, false);
    assertThat(names(store)).containsExactly("_publish.lock", "manifest.json", "v-0001");
    assertThat(tmp.resolve(".store.lock")).doesNotExist();
    // A failed publish releases the writer too.
    OutputCommit.Run third = STORE.begin(store);
    StoreManifest m = new StoreManifest();
    m.vertices = 2;
    m.partitions = 1;
    m.partitionTable.add(new StoreManifest.Partition(0, 0, 2, 0));
    m.inputFingerprint = "other";
    assertThatThrownBy(() -> STORE.publish(third, m, false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("published by another run meanwhile")
        .hasMessageContaining("inputs fp");
    STORE.abort(third);
    assertThat(names(store)).containsExactly("_publish.lock", "manifest.json", "v-0001");
    STORE.abort(STORE.begin(store));
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
  void deadRunsLeftoversAreRemovedAndAnUnreadableManifestNeedsOverwrite() throws Exception {
    Path store = tmp.resolve("store");
    OutputCommit.Run dead = STORE.begin(store);
    Files.writeString(dead.dir().resolve("half"), "x");
    dead.die();
    Files.createDirectories(store.resolve("_staging-earlier-release"));
    String fp = storeRequest("fp", Map.of());
    assertThat(STORE.plan(store, fp, "this", false)).isEqualTo(OutputCommit.Plan.WRITE);
    assertThatThrownBy(() -> StoreManifest.read(store))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("incomplete store");
    publishStore(store, "fp", Map.of(), 2, false);
    assertThat(dead.dir().resolve("half")).doesNotExist();
    assertThat(names(store)).containsExactly("_publish.lock", "manifest.json", "v-0001");

    Files.writeString(store.resolve(StoreLayout.MANIFEST), "{not json");
    assertThatThrownBy(() -> STORE.plan(store, fp, "this", false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("pass --overwrite to replace what is there");
    assertThat(STORE.plan(store, fp, "this", true)).isEqualTo(OutputCommit.Plan.REPLACE);
  }

  @Test
  void aStoreOfAnEarlierReleaseIsReadAndReplacedWhole() throws Exception {
    Path store = tmp.resolve("legacy");
    StoreManifest m = publishStore(store, "fp", Map.of(), 3, false);
    // Move it into the layout of the earlier release: files next to the manifest, no data_dir.
    Path v = store.resolve(m.dataDir);
    Files.move(v.resolve("csr"), store.resolve("csr"));
    Files.move(v.resolve("nodes"), store.resolve("nodes"));
    Files.delete(v);
    m.dataDir = "";
    m.write(store.resolve(StoreLayout.MANIFEST));
    assertThat(StoreManifest.read(store).dataRoot(store)).isEqualTo(store);
    // its identity is the one the earlier release gave it: shards sampled from it still match
    assertThat(StoreManifest.read(store).fingerprint())
        .isEqualTo(Checksums.sha256(Files.readAllBytes(store.resolve(StoreLayout.MANIFEST))));
    assertThat(STORE.plan(store, storeRequest("fp", Map.of()), "this", false))
        .isEqualTo(OutputCommit.Plan.SKIP);
    publishStore(store, "fp2", Map.of(), 4, true);
    assertThat(names(store)).containsExactly("_publish.lock", "manifest.json", "v-0001");
  }

  @Test
  void aDataDirOutsideTheOutputIsRefused() throws Exception {
    Path store = tmp.resolve("store");
    StoreManifest m = publishStore(store, "fp", Map.of(), 1, false);
    for (String bad : new String[] {"..", "/etc", "v-1", "csr", "v-0001/../.."}) {
      m.dataDir = bad;
      m.write(store.resolve(StoreLayout.MANIFEST));
      assertThatThrownBy(() -> StoreManifest.read(store))
          .as(bad)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("outside the store");
    }
  }

  @Test
  void fingerprintsIgnoreTheVersionFolder() throws Exception {
    Path a = tmp.resolve("a");
    Path b = tmp.resolve("b");
    publishStore(a, "fp", Map.of(), 3, false);
    publishStore(b, "fp", Map.of(), 3, false);
    publishStore(b, "fp", Map.of(), 3, true);
    assertThat(StoreManifest.read(b).dataDir).isEqualTo("v-0002");
    assertThat(StoreManifest.read(b).fingerprint()).isEqualTo(StoreManifest.read(a).fingerprint());
    // a field added later and at its default is not written, so older stores keep their identity
    assertThat(StoreManifest.read(a).toJson()).doesNotContain("weighted");
    publishStore(b, "fp", Map.of(), 4, true);
    assertThat(StoreManifest.read(b).fingerprint())
        .isNotEqualTo(StoreManifest.read(a).fingerprint());
  }

  @Test
  void shardsPublishWithManifestLastDropStrayFilesAndPlanReruns() throws Exception {
    Path out = tmp.resolve("out");
    assertThat(SHARDS.plan(out, "a", "a", false)).isEqualTo(OutputCommit.Plan.WRITE);
    OutputCommit.Run run = SHARDS.begin(out);
    Path staging = run.dir();
    ShardManifest m = shardManifest("a", staging, "epoch-0000/part-00000.parquet");
    // a failed task attempt's leftover: not listed, so not published
    Files.write(staging.resolve("epoch-0000/.part-00001.parquet.7-9.tmp"), new byte[3]);
    assertThat(SHARDS.plan(out, "a", "a", false)).isEqualTo(OutputCommit.Plan.WRITE);
    SHARDS.publish(run, m, false);
    assertThat(names(out)).containsExactly("_publish.lock", "manifest.json", "v-0001");
    assertThat(names(out.resolve("v-0001/epoch-0000"))).containsExactly("part-00000.parquet");
    assertThat(ShardManifest.read(out).requestFingerprint).isEqualTo("a");
    assertThat(SHARDS.plan(out, "a", "a", false)).isEqualTo(OutputCommit.Plan.SKIP);
    assertThat(SHARDS.plan(out, "a", "a", true)).isEqualTo(OutputCommit.Plan.REPLACE);
    assertThatThrownBy(() -> SHARDS.plan(out, "b", "request b", false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("another request")
        .hasMessageContaining("request b")
        .hasMessageContaining("--overwrite");
    // A listed file that went missing: not complete, so no skip.
    Files.delete(out.resolve("v-0001/epoch-0000/part-00000.parquet"));
    assertThatThrownBy(() -> SHARDS.plan(out, "a", "a", false))
        .hasMessageContaining("missing or changed files");
    // Replacing drops the old version.
    OutputCommit.Run next = SHARDS.begin(out);
    ShardManifest m2 = shardManifest("b", next.dir(), "epoch-0001/part-00000.parquet");
    SHARDS.publish(next, m2, true);
    assertThat(names(out)).containsExactly("_publish.lock", "manifest.json", "v-0002");
    // No parts at all.
    OutputCommit.Run none = SHARDS.begin(out);
    SHARDS.publish(none, shardManifest("c", none.dir()), true);
    assertThat(names(out)).containsExactly("_publish.lock", "manifest.json", "v-0003");
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
        .hasMessageContaining("shard directory");
    // Each kind refuses the other's earlier-release directories.
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
  void abortRemovesTheVersionAndTheDirectoryItCreatedAndNeverThrows() throws Exception {
    Path out = tmp.resolve("aborted");
    OutputCommit.Run run = SHARDS.begin(out);
    Files.write(run.dir().resolve("part"), new byte[4]);
    SHARDS.abort(run);
    assertThat(out).doesNotExist();
    SHARDS.abort(run); // already gone

    Path existing = tmp.resolve("existing");
    Files.createDirectories(existing);
    OutputCommit.Run r2 = SHARDS.begin(existing);
    SHARDS.abort(r2);
    assertThat(existing).exists();
    assertThat(names(existing)).isEmpty();
  }
}
