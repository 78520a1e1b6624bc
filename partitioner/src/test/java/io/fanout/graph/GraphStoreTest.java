package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.Checksums;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class GraphStoreTest {
  @TempDir Path tmp;

  static Stream<Arguments> shapes() {
    return Stream.of(
        // vertices, max degree, dim, partition sizes, chunk shift
        Arguments.of(0, 0, 0, new int[] {0}, 3),
        Arguments.of(1, 3, 2, new int[] {1}, 3),
        Arguments.of(1, 0, 0, new int[] {0, 1, 0}, 4),
        Arguments.of(10, 5, 3, new int[] {4, 0, 6}, 3),
        Arguments.of(10, 5, 7, new int[] {10}, 5),
        Arguments.of(10_000, 12, 5, new int[] {3000, 1, 0, 4000, 2999}, 12),
        Arguments.of(10_000, 12, 16, new int[] {10_000}, 30));
  }

  @ParameterizedTest
  @MethodSource("shapes")
  void readsBackWhatWasWritten(int n, int maxDeg, int dim, int[] parts, int shift)
      throws IOException {
    StoreFixtures.Graph g = StoreFixtures.random(n * 31L + dim, n, maxDeg, dim);
    Path store = tmp.resolve("s");
    StoreFixtures.write(store, g, parts);
    try (GraphStore s = GraphStore.open(store, shift)) {
      assertThat(s.manifest().vertices).isEqualTo(n);
      assertThat(s.verifyChecksums()).isEqualTo(s.manifest().files.size());
      CsrGraph csr = s.csr();
      assertThat(csr.numVertices()).isEqualTo(n);
      assertThat(csr.numEdges()).isEqualTo(g.numEdges());
      long pos = 0;
      for (int v = 0; v < n; v++) {
        assertThat(csr.rowStart(v)).isEqualTo(pos);
        int[] row = new int[(int) csr.degree(v)];
        for (int i = 0; i < row.length; i++) {
          row[i] = csr.neighbor(csr.rowStart(v) + i);
        }
        assertThat(row).as("row %d", v).containsExactly(g.rows[v]);
        pos = csr.rowEnd(v);
        assertThat(s.vertices().label(v)).isEqualTo(g.labels[v]);
        assertThat(s.vertices().split(v)).isEqualTo(g.splits[v]);
      }
      FeatureTable x = s.features();
      int effectiveDim = n == 0 ? 0 : dim;
      assertThat(x.dim()).isEqualTo(effectiveDim);
      if (effectiveDim > 0) {
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
          ids[i] = n - 1 - i;
        }
        float[] out = new float[1 + n * dim];
        x.gather(ids, 0, n, out, 1);
        for (int i = 0; i < n; i++) {
          for (int j = 0; j < dim; j++) {
            assertThat(out[1 + i * dim + j]).isEqualTo(g.features[ids[i]][j]);
          }
        }
      }
    }
  }

  @Test
  void valuesStraddlingChunkBoundariesAreRead() throws IOException {
    Path f = tmp.resolve("odd.bin");
    ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
    b.putLong(5, 0x0102030405060708L);
    b.putInt(14, 0x7eadbeef);
    b.putLong(30, -2L);
    Files.write(f, b.array());
    ChunkedMapping m = new ChunkedMapping(f, 3);
    assertThat(m.getLong(5)).isEqualTo(0x0102030405060708L);
    assertThat(m.getInt(14)).isEqualTo(0x7eadbeef);
    assertThat(m.getLong(30)).isEqualTo(-2L);
    assertThat(m.length()).isEqualTo(64);
    assertThatThrownBy(() -> m.getLong(60))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessageContaining("odd.bin");
  }

  @Test
  void refusesStoreWithoutManifest() throws IOException {
    Path store = tmp.resolve("s");
    StoreFixtures.write(store, StoreFixtures.random(1, 10, 3, 2), new int[] {10});
    Files.delete(store.resolve(StoreLayout.MANIFEST));
    assertThatThrownBy(() -> GraphStore.open(store))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("incomplete store");
    assertThatThrownBy(() -> GraphStore.open(tmp.resolve("nope")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("no such graph store");
  }

  @Test
  void truncatedPartFileIsNamed() throws IOException {
    Path store = tmp.resolve("s");
    StoreFixtures.write(store, StoreFixtures.random(2, 100, 4, 3), new int[] {60, 40});
    Path csr =
        io.fanout.store.StoreManifest.read(store).dataRoot(store).resolve(StoreLayout.csrFile(1));
    try (RandomAccessFile raf = new RandomAccessFile(csr.toFile(), "rw")) {
      raf.setLength(raf.length() - 4);
    }
    assertThatThrownBy(() -> GraphStore.open(store))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("part-00001.csr")
        .hasMessageContaining("truncated");
    try (RandomAccessFile raf = new RandomAccessFile(csr.toFile(), "rw")) {
      raf.setLength(20);
    }
    assertThatThrownBy(() -> GraphStore.open(store))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("part-00001.csr")
        .hasMessageContaining("truncated");
  }

  @Test
  void badMagicAndVersionAreNamed() throws IOException {
    Path store = tmp.resolve("s");
    StoreFixtures.write(store, StoreFixtures.random(3, 50, 4, 3), new int[] {50});
    Path nodes =
        io.fanout.store.StoreManifest.read(store).dataRoot(store).resolve(StoreLayout.nodesFile(0));
    byte[] orig = Files.readAllBytes(nodes);
    byte[] bad = orig.clone();
    bad[0] = 'X';
    Files.write(nodes, bad);
    assertThatThrownBy(() -> GraphStore.open(store))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("part-00000.nodes")
        .hasMessageContaining("bad magic");
    bad = orig.clone();
    bad[8] = 9;
    Files.write(nodes, bad);
    assertThatThrownBy(() -> GraphStore.open(store))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("part-00000.nodes")
        .hasMessageContaining("version 9");
  }

  @Test
  void checksumsCatchCorruptedBytes() throws IOException {
    Path store = tmp.resolve("s");
    StoreFixtures.write(store, StoreFixtures.random(4, 50, 4, 3), new int[] {20, 30});
    Path feat =
        io.fanout.store.StoreManifest.read(store)
            .dataRoot(store)
            .resolve(StoreLayout.featuresFile(1));
    byte[] b = Files.readAllBytes(feat);
    b[b.length - 1] ^= 1;
    Files.write(feat, b);
    try (GraphStore s = GraphStore.open(store)) {
      assertThatThrownBy(s::verifyChecksums)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("part-00001.feat")
          .hasMessageContaining("CRC32C");
    }
  }

  @Test
  void checkedOncePerProcessUntilAFileChanges() throws IOException {
    Path store = tmp.resolve("s");
    StoreManifest m =
        StoreFixtures.write(store, StoreFixtures.random(6, 50, 4, 3), new int[] {20, 30});
    try (GraphStore a = GraphStore.open(store);
        GraphStore b = GraphStore.open(store, true)) {
      // b's open read every file; a, a second opening, reads none of the unchanged files.
      assertThat(a.verifyChecksumsOnce()).isZero();
      assertThat(b.verifyChecksumsOnce()).isZero();
      assertThat(a.verifyChecksums()).isEqualTo(m.files.size());

      Path feat =
          io.fanout.store.StoreManifest.read(store)
              .dataRoot(store)
              .resolve(StoreLayout.featuresFile(1));
      byte[] orig = Files.readAllBytes(feat);
      FileTime mtime = Files.getLastModifiedTime(feat);
      byte[] bad = orig.clone();
      bad[StoreLayout.HEADER_BYTES] ^= 1;
      Files.write(feat, bad);
      Files.setLastModifiedTime(feat, FileTime.fromMillis(mtime.toMillis() + 1000));
      assertThatThrownBy(b::verifyChecksumsOnce)
          .isInstanceOf(InvalidInputException.class)
          .hasMessage(
              feat
                  + ": CRC32C "
                  + Checksums.crc32c(feat)
                  + ", expected "
                  + m.file(StoreLayout.featuresFile(1)).crc32c
                  + " from "
                  + store.resolve(StoreLayout.MANIFEST)
                  + "; the graph store is damaged: rerun prepare with --overwrite");
      assertThatThrownBy(() -> GraphStore.open(store, true))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining(feat + ": CRC32C");

      // Repaired: only the changed file is read again.
      Files.write(feat, orig);
      Files.setLastModifiedTime(feat, FileTime.fromMillis(mtime.toMillis() + 2000));
      assertThat(a.verifyChecksumsOnce()).isEqualTo(1);
      assertThat(b.verifyChecksumsOnce()).isZero();
    }
  }

  @Test
  void aDamagedHeaderIsReportedByItsChecksumWhenVerifying() throws IOException {
    Path store = tmp.resolve("s");
    StoreFixtures.write(store, StoreFixtures.random(7, 30, 4, 2), new int[] {30});
    Path nodes =
        io.fanout.store.StoreManifest.read(store).dataRoot(store).resolve(StoreLayout.nodesFile(0));
    byte[] b = Files.readAllBytes(nodes);
    b[0] ^= 1;
    Files.write(nodes, b);
    assertThatThrownBy(() -> GraphStore.open(store, true))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(nodes + ": CRC32C")
        .hasMessageEndingWith("rerun prepare with --overwrite");
    assertThatThrownBy(() -> GraphStore.open(store, false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("bad magic");
  }

  @Test
  void headerCountsMustMatchManifest() throws IOException {
    Path store = tmp.resolve("s");
    StoreManifest m =
        StoreFixtures.write(store, StoreFixtures.random(5, 30, 4, 0), new int[] {10, 20});
    m.partitionTable.get(0).numEdges += 1;
    m.partitionTable.get(1).numEdges -= 1;
    m.write(store.resolve(StoreLayout.MANIFEST));
    assertThatThrownBy(() -> GraphStore.open(store))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("part-00000.csr");
  }
}
