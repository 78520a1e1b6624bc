package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binary snapshot that lets the GPU tests load cora where Hadoop (and so Parquet) is not on
 * the class path: it reads back exactly the tables that {@link TestData#load} built from Parquet.
 */
class TestDataSnapshotTest {
  @TempDir Path tmp;

  @Test
  void aSnapshotReadsBackTheTablesLoadedFromParquet() throws IOException {
    Path file = tmp.resolve("cora.testdata");
    TestData.writeSnapshot("cora", file);
    TestData want = TestData.load("cora");
    TestData got = TestData.readSnapshot(file);
    assertThat(got.classes).isEqualTo(want.classes);
    assertThat(got.features.dim).isEqualTo(want.features.dim);
    assertThat(got.features.rows).containsExactly(want.features.rows);
    assertThat(got.vertices.labels).containsExactly(want.vertices.labels);
    assertThat(got.vertices.splits).containsExactly(want.vertices.splits);
    assertThat(got.csr.numVertices()).isEqualTo(want.csr.numVertices());
    assertThat(got.csr.numEdges()).isEqualTo(want.csr.numEdges());
    for (int v = 0; v < want.csr.numVertices(); v++) {
      assertThat(got.csr.rowStart(v)).isEqualTo(want.csr.rowStart(v));
    }
    for (long e = 0; e < want.csr.numEdges(); e++) {
      assertThat(got.csr.neighbor(e)).isEqualTo(want.csr.neighbor(e));
    }
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
