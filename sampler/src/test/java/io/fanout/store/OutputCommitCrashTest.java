package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.GraphStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Kills the writer of {@link OutputCommit} at every {@link OutputCommit.Step} (an injected fault,
 * then the lock dropped as the OS drops a dead process's locks) while it replaces a complete store,
 * and while it writes a first one. Each time the output must read as the old store or the new one,
 * complete and with valid checksums, never a mix; and the next run must succeed and leave exactly
 * one version behind.
 */
class OutputCommitCrashTest {
  @TempDir Path tmp;

  private static final class Crash extends RuntimeException {
    Crash(OutputCommit.Step at) {
      super("injected crash at " + at);
    }
  }

  @AfterEach
  void noFaults() {
    OutputCommit.faults = s -> {};
  }

  private static void crashAt(OutputCommit.Step target) {
    boolean[] fired = {false};
    OutputCommit.faults =
        s -> {
          if (s == target && !fired[0]) {
            fired[0] = true;
            throw new Crash(s);
          }
        };
  }

  /** Writes and publishes a one-partition store of {@code vertices} vertices. */
  private static void write(Path store, int vertices, boolean overwrite) {
    OutputCommit.Run run = StoreOutput.COMMIT.begin(store);
    StoreManifest m = OutputCommitTest.writeStore(run.dir(), vertices);
    m.inputFingerprint = "inputs-" + vertices;
    try {
      StoreOutput.COMMIT.publish(run, m, overwrite);
    } catch (Crash c) {
      run.die(); // as after kill -9: the files stay, the lock goes
      throw c;
    }
  }

  /** The store's vertex count after checking that it opens and every checksum matches. */
  private static long readWhole(Path store) {
    try (GraphStore g = GraphStore.open(store)) {
      assertThat(g.verifyChecksums()).isEqualTo(2);
      assertThat(g.vertices().numVertices()).isEqualTo(g.manifest().vertices);
      return g.manifest().vertices;
    }
  }

  private static List<String> names(Path d) throws Exception {
    try (Stream<Path> s = Files.list(d)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @ParameterizedTest
  @EnumSource(OutputCommit.Step.class)
  void replacingAStoreSurvivesACrashAtEveryStep(OutputCommit.Step at) throws Exception {
    Path store = tmp.resolve("store");
    write(store, 3, false);
    crashAt(at);
    assertThatThrownBy(() -> write(store, 5, true)).isInstanceOf(Crash.class);

    long seen = readWhole(store);
    boolean published = at == OutputCommit.Step.PUBLISHED || at == OutputCommit.Step.OLD_REMOVED;
    assertThat(seen).isEqualTo(published ? 5 : 3);

    OutputCommit.faults = s -> {};
    write(store, 7, true);
    assertThat(readWhole(store)).isEqualTo(7);
    String current = StoreManifest.read(store).dataDir;
    assertThat(names(store)).containsExactly("_publish.lock", "manifest.json", current);
  }

  @ParameterizedTest
  @EnumSource(OutputCommit.Step.class)
  void aFirstWriteSurvivesACrashAtEveryStep(OutputCommit.Step at) throws Exception {
    Path store = tmp.resolve("first");
    crashAt(at);
    try {
      write(store, 4, false);
    } catch (Crash expected) {
      // the writer died at `at`
    }
    boolean published = at == OutputCommit.Step.PUBLISHED || at == OutputCommit.Step.OLD_REMOVED;
    if (published) {
      assertThat(readWhole(store)).isEqualTo(4);
    } else {
      assertThatThrownBy(() -> GraphStore.open(store))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("incomplete store");
    }

    OutputCommit.faults = s -> {};
    write(store, 4, false); // writes, or skips the identical complete store
    assertThat(readWhole(store)).isEqualTo(4);
    String current = StoreManifest.read(store).dataDir;
    assertThat(names(store)).containsExactly("_publish.lock", "manifest.json", current);
  }

  @org.junit.jupiter.api.Test
  void aReaderKeepsTheVersionItOpenedWhileTheStoreIsReplaced() {
    Path store = tmp.resolve("read");
    write(store, 3, false);
    try (GraphStore before = GraphStore.open(store)) {
      write(store, 6, true);
      assertThat(before.manifest().vertices).isEqualTo(3);
      assertThat(before.vertices().split(2)).isEqualTo(StoreLayout.SPLIT_TRAIN); // still mapped
      assertThat(readWhole(store)).isEqualTo(6);
    }
    StoreManifest m = StoreManifest.read(store);
    assertThat(m.dataDir).isEqualTo("v-0002");
    assertThat(m.options).isEqualTo(Map.of());
  }
}
