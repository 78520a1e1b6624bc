package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binary snapshot that lets the GPU tests load cora where Hadoop (and so Parquet) is not on the
 * class path: it reads back exactly the tables that {@link TestData#load} built from Parquet.
 */
class TestDataSnapshotTest {
  @TempDir Path tmp;

  @Test
  void aSnapshotReadsBackTheTablesLoadedFromParquet() throws IOException {
    Path file = tmp.resolve("cora.testdata");
    TestData want = TestData.load("cora"); // Parquet is read once: load is a function of the files
    TestData.writeSnapshot(want, file);
    TestData got = TestData.readSnapshot(file);
    assertThat(got.classes).isEqualTo(want.classes);
    assertThat(got.features.dim).isEqualTo(want.features.dim);
    // Arrays.equals: AssertJ's containsExactly is far too slow on 3.9 M floats.
    assertThat(Arrays.equals(got.features.rows, want.features.rows)).isTrue();
    assertThat(Arrays.equals(got.vertices.labels, want.vertices.labels)).isTrue();
    assertThat(Arrays.equals(got.vertices.splits, want.vertices.splits)).isTrue();
    assertThat(got.csr.numVertices()).isEqualTo(want.csr.numVertices());
    assertThat(got.csr.numEdges()).isEqualTo(want.csr.numEdges());
    int badRows = 0;
    for (int v = 0; v < want.csr.numVertices(); v++) {
      badRows += got.csr.rowStart(v) == want.csr.rowStart(v) ? 0 : 1;
    }
    long badEdges = 0;
    for (long e = 0; e < want.csr.numEdges(); e++) {
      badEdges += got.csr.neighbor(e) == want.csr.neighbor(e) ? 0 : 1;
    }
    assertThat(badRows).as("row starts that differ").isZero();
    assertThat(badEdges).as("neighbors that differ").isZero();
  }

  @Test
  void aFileThatIsNotASnapshotIsRefusedByName() throws IOException {
    Path file = Files.write(tmp.resolve("x.testdata"), new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
    assertThatThrownBy(() -> TestData.readSnapshot(file))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("x.testdata")
        .hasMessageContaining("not a TestData snapshot");
  }
}
