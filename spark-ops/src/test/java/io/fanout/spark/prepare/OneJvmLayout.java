package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.FeatureRelayout;
import io.fanout.graph.GraphStore;
import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The reference for the feature layout {@code prepare} and {@code quantize} write in one Spark task
 * per partition: the one-JVM path ({@link FeatureRelayout#positions} over the whole graph, then
 * {@link FeatureRelayout#write}) applied to a copy of the feature files of the store without a
 * layout.
 */
final class OneJvmLayout {
  private OneJvmLayout() {}

  /** The feature files of {@code plain} copied under {@code dir} and laid out in {@code kind}. */
  static Path of(Path plain, FeatureLayoutKind kind, Path dir) throws IOException {
    Path copy = Files.createTempDirectory(dir, "one-jvm-" + kind.id());
    Path data = StoreManifest.read(plain).dataRoot(plain);
    Files.createDirectories(copy.resolve(StoreLayout.FEATURES_DIR));
    try (Stream<Path> files = Files.list(data.resolve(StoreLayout.FEATURES_DIR))) {
      for (Path f : files.toList()) {
        Files.copy(f, copy.resolve(StoreLayout.FEATURES_DIR).resolve(f.getFileName()));
      }
    }
    try (GraphStore g = GraphStore.open(plain)) {
      FeatureRelayout.write(
          copy,
          FeatureRelayout.vertexStarts(g),
          FeatureRelayout.stagedRowBytes(copy),
          FeatureRelayout.positions(g, kind, 3),
          kind,
          3);
    }
    return copy;
  }

  /**
   * Asserts that every feature file of {@code store} (rows, order file, parameters) has the bytes
   * of the one under {@code oneJvm}, and that the folder holds nothing else.
   */
  static void assertSameFeatureFiles(Path store, Path oneJvm) throws IOException {
    StoreManifest m = StoreManifest.read(store);
    Path data = m.dataRoot(store);
    List<String> names = names(data);
    assertThat(names)
        .as(store + ": the feature files, nothing kept from laying them out")
        .isEqualTo(names(oneJvm))
        .contains(StoreLayout.FEATURE_ORDER, StoreLayout.featuresFile(m.partitions - 1));
    for (String rel : names) {
      assertThat(Files.readAllBytes(data.resolve(rel)))
          .as(store + " " + rel)
          .isEqualTo(Files.readAllBytes(oneJvm.resolve(rel)));
    }
  }

  private static List<String> names(Path data) throws IOException {
    try (Stream<Path> files = Files.list(data.resolve(StoreLayout.FEATURES_DIR))) {
      List<String> names =
          new ArrayList<>(
              files.map(f -> StoreLayout.FEATURES_DIR + "/" + f.getFileName()).toList());
      names.sort(null);
      return names;
    }
  }
}
