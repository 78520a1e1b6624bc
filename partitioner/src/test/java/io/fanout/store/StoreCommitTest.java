package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreCommitTest {
  @TempDir Path tmp;

  private StoreManifest publishOne(
      Path store, String fingerprint, Map<String, String> opts, int vertices, boolean overwrite) {
    Path staging = StoreCommit.beginStaging(store, "run" + vertices);
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
    m.files = StoreCommit.describe(staging);
    StoreCommit.publish(store, staging, m, overwrite);
    return m;
  }

  @Test
  void publishesWithManifestLastAndPlansReruns() throws IOException {
    Path store = tmp.resolve("store");
    Map<String, String> opts = Map.of("undirected", "true");
    assertThat(StoreCommit.plan(store, "fp", opts, false)).isEqualTo(StoreCommit.Plan.WRITE);
    StoreManifest m = publishOne(store, "fp", opts, 3, false);
    assertThat(m.files)
        .extracting(f -> f.path)
        .containsExactly("csr/part-00000.csr", "nodes/part-00000.nodes");
    assertThat(m.file("nodes/part-00000.nodes").bytes).isEqualTo(64 + 5 * 3);
    try (var s = Files.list(store)) {
      assertThat(s.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("manifest.json", "csr", "nodes");
    }
    StoreManifest back = StoreManifest.read(store);
    assertThat(back.toJson()).isEqualTo(m.toJson());

    assertThat(StoreCommit.plan(store, "fp", opts, false)).isEqualTo(StoreCommit.Plan.SKIP);
    assertThat(StoreCommit.plan(store, "fp", opts, true)).isEqualTo(StoreCommit.Plan.REPLACE);
    assertThatThrownBy(() -> StoreCommit.plan(store, "fp", Map.of("undirected", "false"), false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--overwrite");
    assertThatThrownBy(() -> StoreCommit.plan(store, "other", opts, false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("other inputs");

    publishOne(store, "fp2", opts, 5, true);
    assertThat(StoreManifest.read(store).vertices).isEqualTo(5);
    assertThat(Files.size(store.resolve(StoreLayout.nodesFile(0)))).isEqualTo(64 + 25);
  }

  @Test
  void leftoverStagingIsRemovedAndForeignDirectoriesRefused() throws IOException {
    Path store = tmp.resolve("store");
    Path dead = StoreCommit.beginStaging(store, "dead");
    Files.writeString(dead.resolve("half"), "x");
    assertThat(StoreCommit.plan(store, "fp", Map.of(), false)).isEqualTo(StoreCommit.Plan.WRITE);
    assertThatThrownBy(() -> StoreManifest.read(store))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("incomplete store");
    publishOne(store, "fp", Map.of(), 2, false);
    assertThat(Files.exists(dead)).isFalse();

    Path foreign = tmp.resolve("home");
    Files.createDirectories(foreign);
    Files.writeString(foreign.resolve("thesis.tex"), "precious");
    assertThatThrownBy(() -> StoreCommit.plan(foreign, "fp", Map.of(), true))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("thesis.tex");
  }

  @Test
  void writersRefuseWrongRowCountsAndHeadersParseBack() {
    Path f = tmp.resolve("x.csr");
    CsrFileWriter w = new CsrFileWriter(f, 0, 0, 2);
    w.endRow();
    assertThatThrownBy(w::finish).hasMessageContaining("wrote 1 rows, expected 2");
    w.close();
    byte[] h = StoreHeader.create(StoreLayout.CSR_MAGIC).putLong(16, 42).toBytes();
    StoreHeader back = StoreHeader.parse("x", h, StoreLayout.CSR_MAGIC, 64);
    assertThat(back.getLong(16)).isEqualTo(42);
    assertThatThrownBy(() -> StoreHeader.parse("x", h, StoreLayout.NODES_MAGIC, 64))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("bad magic 'FNOCSR01'");
  }
}
