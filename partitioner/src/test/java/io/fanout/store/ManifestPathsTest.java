package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.GraphStore;
import io.fanout.graph.StoreFixtures;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Manifest paths stay inside their folder: by form, and through symbolic links. */
class ManifestPathsTest {
  @TempDir Path tmp;

  @Test
  void relativeNormalizedPathsInsideTheFolderResolve() throws Exception {
    Path root = Files.createDirectories(tmp.resolve("store"));
    Files.createDirectories(root.resolve("csr"));
    Files.write(root.resolve("csr/part-00000.csr"), new byte[1]);
    assertThat(ManifestPaths.resolve(root, "m.json", "store", "csr/part-00000.csr"))
        .isEqualTo(root.resolve("csr/part-00000.csr"));
    assertThat(ManifestPaths.resolve(root, "m.json", "store", "csr/missing.csr"))
        .as("missing files resolve; readers report them as missing")
        .isEqualTo(root.resolve("csr/missing.csr"));
    // a link that stays inside is fine
    Files.createSymbolicLink(root.resolve("alias"), root.resolve("csr"));
    assertThat(ManifestPaths.resolve(root, "m.json", "store", "alias/part-00000.csr"))
        .isEqualTo(root.resolve("alias/part-00000.csr"));
  }

  @Test
  void absoluteEscapingOrUnnormalizedPathsAreRefused() {
    for (String bad :
        new String[] {
          "/etc/passwd",
          "../../../../etc/passwd",
          "csr/../../x",
          "./csr/part-00000.csr",
          "csr//part-00000.csr",
          "csr/",
          "",
          "..",
          "csr\\..\\x"
        }) {
      assertThatThrownBy(() -> ManifestPaths.check("STORE/manifest.json", "store", bad))
          .as(bad)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("STORE/manifest.json")
          .hasMessageContaining("outside the store")
          .hasMessageNotContaining("truncated");
    }
    assertThatThrownBy(() -> ManifestPaths.check("m", "store", null))
        .isInstanceOf(InvalidInputException.class);
  }

  @Test
  void aSymbolicLinkLeadingOutOfTheFolderIsRefused() throws Exception {
    Path root = Files.createDirectories(tmp.resolve("store"));
    Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere"));
    Files.write(elsewhere.resolve("secret"), new byte[] {42});
    Files.createSymbolicLink(root.resolve("csr"), elsewhere);
    Files.createSymbolicLink(root.resolve("file.bin"), elsewhere.resolve("secret"));
    for (String viaLink : new String[] {"csr/secret", "file.bin"}) {
      assertThatThrownBy(() -> ManifestPaths.resolve(root, "m.json", "store", viaLink))
          .as(viaLink)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("outside the store")
          .hasMessageContaining("symbolic link");
    }
  }

  @Test
  void aStoreManifestPointingOutsideIsRefusedBeforeAnythingIsRead() throws Exception {
    Path store = tmp.resolve("g.store");
    StoreFixtures.write(store, StoreFixtures.random(1, 50, 4, 3), new int[] {50});
    Path manifest = store.resolve(StoreLayout.MANIFEST);
    String json = Files.readString(manifest, StandardCharsets.UTF_8);
    String firstPath = StoreManifest.read(store).files.get(0).path;
    for (String bad : new String[] {"/etc/passwd", "../../../../etc/passwd"}) {
      Files.writeString(
          manifest,
          json.replace("\"" + firstPath + "\"", "\"" + bad + "\""),
          StandardCharsets.UTF_8);
      assertThatThrownBy(() -> StoreManifest.read(store))
          .as(bad)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("outside the store")
          .hasMessageContaining(bad);
    }
    Files.writeString(manifest, json, StandardCharsets.UTF_8);
    try (GraphStore g = GraphStore.open(store)) {
      assertThat(g.verifyChecksums()).isPositive();
    }

    // The same bytes, but behind a symbolic link that leaves the store: refused, not read.
    Path file = StoreManifest.read(store).dataRoot(store).resolve(firstPath);
    Path outside = tmp.resolve("outside.bin");
    Files.copy(file, outside);
    Files.delete(file);
    Files.createSymbolicLink(file, outside);
    assertThatThrownBy(
            () -> {
              try (GraphStore g = GraphStore.open(store)) {
                g.verifyChecksums();
              }
            })
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("outside the store")
        .hasMessageContaining(firstPath);
  }
}
