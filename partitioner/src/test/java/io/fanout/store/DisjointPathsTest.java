package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An output equal to, inside or holding an input or another output is refused; siblings pass. */
class DisjointPathsTest {
  @TempDir Path tmpDir;
  Path tmp;
  Path store;

  @BeforeEach
  void store() throws IOException {
    tmp = tmpDir.toRealPath(); // the messages name real paths
    store = Files.createDirectories(tmp.resolve("a/store"));
    Files.writeString(store.resolve("manifest.json"), "{}");
  }

  private static DisjointPaths graphTo(Path graph, Path output) {
    return new DisjointPaths().input("--graph", graph).output("--output", output);
  }

  @Test
  void anOutputEqualToAnInputIsRefusedNamingBothOptionsAndThePath() {
    assertThatThrownBy(() -> graphTo(store, store).check())
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "--output "
                + store
                + " is the input --graph "
                + store
                + "; it would change or replace the input: choose another --output");
  }

  @Test
  void anOutputInsideAnInputIsRefused() {
    Path inside = store.resolve("model");
    assertThatThrownBy(
            () -> new DisjointPaths().input("--graph", store).output("--model-dir", inside).check())
        .hasMessageStartingWith("--model-dir " + inside + " is inside the input --graph " + store)
        .hasMessageEndingWith("choose another --model-dir");
  }

  @Test
  void anOutputNotYetThereUnderAnInputIsRefused() {
    Path deep = store.resolve("x/y/../z/out");
    assertThat(deep).doesNotExist();
    assertThatThrownBy(() -> graphTo(store, deep).check())
        .hasMessageContaining(" is inside the input --graph " + store);
  }

  @Test
  void anOutputHoldingAnInputIsRefused() {
    Path parent = tmp.resolve("a");
    assertThatThrownBy(() -> graphTo(store, parent).check())
        .hasMessageStartingWith("--output " + parent + " holds the input --graph " + store);
  }

  @Test
  void symbolicLinksAreFollowedAndTheRealPathNamed() throws IOException {
    Path link = Files.createSymbolicLink(tmp.resolve("link"), store);
    Path real = store.toRealPath();
    assertThatThrownBy(() -> graphTo(store, link).check())
        .hasMessageStartingWith(
            "--output " + link + " (real path " + real + ") is the input --graph " + store);
    // a link to the input's parent, and a path not yet there below it
    Path parentLink = Files.createSymbolicLink(tmp.resolve("up"), tmp.resolve("a"));
    assertThatThrownBy(() -> graphTo(parentLink.resolve("store"), tmp.resolve("a")).check())
        .hasMessageContaining(" holds the input --graph ");
    assertThatThrownBy(() -> graphTo(store, parentLink.resolve("store/new/out")).check())
        .hasMessageContaining(" is inside the input --graph ");
  }

  @Test
  void aDanglingLinkIsResolvedThroughItsTarget() throws IOException {
    Path dangling =
        Files.createSymbolicLink(tmp.resolve("dangling"), store.resolve("not-yet/predictions"));
    assertThatThrownBy(() -> graphTo(store, dangling).check())
        .hasMessageContaining(" is inside the input --graph ");
  }

  @Test
  void siblingsWithACommonPrefixAndDisjointPathsPass() throws IOException {
    Files.createDirectories(tmp.resolve("a/store2"));
    assertThatCode(() -> graphTo(store, tmp.resolve("a/store2")).check())
        .doesNotThrowAnyException();
    assertThatCode(() -> graphTo(store, tmp.resolve("a/store-new/out")).check())
        .doesNotThrowAnyException();
    assertThatCode(() -> graphTo(tmp.resolve("a/store2"), store).check())
        .doesNotThrowAnyException();
  }

  @Test
  void outputsMustNotOverlapEachOther() {
    Path pred = tmp.resolve("out/pred");
    assertThatThrownBy(
            () ->
                new DisjointPaths()
                    .input("--graph", store)
                    .output("--output", pred)
                    .output("--embeddings", pred.resolve("emb"))
                    .check())
        .hasMessage(
            "--embeddings "
                + pred.resolve("emb")
                + " is inside the output --output "
                + pred
                + "; two outputs must not overlap: choose another --embeddings");
    assertThatCode(
            () ->
                new DisjointPaths()
                    .output("--output", pred)
                    .output("--embeddings", tmp.resolve("out/emb"))
                    .check())
        .doesNotThrowAnyException();
  }

  @Test
  void relativePathsResolveAgainstTheWorkingDirectoryAndAbsentOnesAreSkipped() {
    Path cwd = Path.of("").toAbsolutePath();
    assertThatThrownBy(() -> graphTo(Path.of("x/store"), cwd.resolve("x/store/out")).check())
        .hasMessageContaining(" is inside the input --graph x/store");
    assertThatCode(
            () ->
                new DisjointPaths()
                    .input("--val-shards", null)
                    .output("--embeddings", null)
                    .output("--output", store.resolveSibling("pred"))
                    .check())
        .doesNotThrowAnyException();
  }

  @Test
  void theMessageIsOneLine() {
    assertThatThrownBy(() -> graphTo(store, store).check())
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void anOutputGivenOverAnInputFileIsRefusedAsTheInputNotAsAFile() throws IOException {
    Path vertices = Files.writeString(tmpDir.resolve("vertices.csv"), "id\n1\n");
    assertThatThrownBy(
            () ->
                new DisjointPaths()
                    .input("--vertices", vertices)
                    .output("--output", vertices)
                    .check())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("is the input --vertices")
        .hasMessageNotContaining("remove it");
    // an output that is a file and no input: refused as a file
    Path other = Files.writeString(tmpDir.resolve("other"), "x");
    assertThatThrownBy(
            () ->
                new DisjointPaths().input("--vertices", vertices).output("--output", other).check())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("is a file, not a folder");
  }
}
