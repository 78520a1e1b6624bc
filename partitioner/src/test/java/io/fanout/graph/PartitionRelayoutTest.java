package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.FeatureParams;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A feature layout written partition by partition from the staged files ({@link PartitionRelayout},
 * as the Spark tasks of {@code prepare} and {@code quantize} run it) gives the files of the one-JVM
 * path ({@link FeatureRelayout#positions} over the whole graph, then {@link
 * FeatureRelayout#write}), whatever the threads, the partition order, or a partition laid out
 * twice.
 */
class PartitionRelayoutTest {
  @TempDir Path tmp;

  private static final int[] PARTS = {70, 0, 55, 75};

  @Test
  void partitionByPartitionWritesTheFilesOfTheOneJvmPath() throws IOException {
    StoreFixtures.Graph g = StoreFixtures.random(11, 200, 7, 5);
    for (FeatureParams params :
        new FeatureParams[] {null, FeatureParams.plain(StoreLayout.ENCODING_F16, 5)}) {
      String tag = params == null ? "f32" : "f16";
      Path plain = tmp.resolve("plain-" + tag);
      StoreFixtures.write(plain, g, PARTS, params);
      StoreManifest m = StoreManifest.read(plain);
      PartitionRelayout.Staged staged = staged(m);
      for (FeatureLayoutKind kind :
          new FeatureLayoutKind[] {FeatureLayoutKind.SEED_GROUPS, FeatureLayoutKind.NEIGHBORHOOD}) {
        Path oneJvm = copy(plain, tag + "-one-jvm-" + kind.id());
        try (GraphStore s = GraphStore.open(plain)) {
          FeatureRelayout.write(
              oneJvm,
              FeatureRelayout.vertexStarts(s),
              FeatureRelayout.stagedRowBytes(oneJvm),
              FeatureRelayout.positions(s, kind, 2),
              kind,
              2);
        }
        for (int threads : new int[] {1, 4}) {
          Path perPart = copy(plain, tag + "-" + threads + "-" + kind.id());
          FeatureRelayout.writeStaged(perPart, staged.counts(), staged.edges(), kind, threads);
          assertSameFeatureFiles(perPart, oneJvm, tag + " " + kind.id() + " " + threads);
        }
        // backwards, and partition 2 a second time after all: a retried task
        Path retried = copy(plain, tag + "-retried-" + kind.id());
        int rowBytes = FeatureRelayout.stagedRowBytes(retried);
        PartitionRelayout.start(retried, staged, kind);
        for (int p : new int[] {3, 2, 1, 0, 2}) {
          PartitionRelayout.layOut(retried, staged, p, rowBytes, kind);
        }
        PartitionRelayout.finish(retried, staged);
        assertSameFeatureFiles(retried, oneJvm, tag + " " + kind.id() + " retried");
      }
    }
  }

  private static PartitionRelayout.Staged staged(StoreManifest m) {
    long[] counts = new long[m.partitions];
    long[] edges = new long[m.partitions];
    for (int p = 0; p < m.partitions; p++) {
      counts[p] = m.partitionTable.get(p).numVertices;
      edges[p] = m.partitionTable.get(p).numEdges;
    }
    return new PartitionRelayout.Staged(counts, edges);
  }

  /** The staged files of a store without a layout: its data folder copied, no manifest. */
  private Path copy(Path store, String name) throws IOException {
    Path data = StoreManifest.read(store).dataRoot(store);
    Path to = tmp.resolve(name);
    for (String dir :
        new String[] {StoreLayout.CSR_DIR, StoreLayout.NODES_DIR, StoreLayout.FEATURES_DIR}) {
      Files.createDirectories(to.resolve(dir));
      try (Stream<Path> files = Files.list(data.resolve(dir))) {
        for (Path f : files.toList()) {
          Files.copy(f, to.resolve(dir).resolve(f.getFileName()));
        }
      }
    }
    return to;
  }

  private static void assertSameFeatureFiles(Path got, Path want, String what) throws IOException {
    List<String> names = names(got);
    assertThat(names)
        .as(what + ": the files, no file kept for a retry")
        .isEqualTo(names(want))
        .contains(Path.of(StoreLayout.FEATURE_ORDER).getFileName().toString());
    for (String name : names) {
      Path f = Path.of(StoreLayout.FEATURES_DIR, name);
      assertThat(Files.readAllBytes(got.resolve(f)))
          .as(what + " " + f)
          .isEqualTo(Files.readAllBytes(want.resolve(f)));
    }
  }

  private static List<String> names(Path staged) throws IOException {
    try (Stream<Path> files = Files.list(staged.resolve(StoreLayout.FEATURES_DIR))) {
      List<String> names = new ArrayList<>(files.map(f -> f.getFileName().toString()).toList());
      names.sort(null);
      return names;
    }
  }
}
