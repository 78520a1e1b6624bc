package io.fanout.sample;

import static io.fanout.sample.SparseLargeStore.DIM;
import static io.fanout.sample.SparseLargeStore.HUB_DEGREE;
import static io.fanout.sample.SparseLargeStore.VERTICES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.GraphStore;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 2^31 and 2^32 boundaries of edge positions and file offsets, on a store of 3.2 billion edges
 * and 4.4 GB of features held in sparse files ({@link SparseLargeStore}): the memory-mapped
 * readers, checksum verification, and both sampler paths (whole batches and one node at a time, as
 * the partitioned mode samples) read exactly the values written past each boundary. The store lies
 * on tmpfs where there is one ({@link SparseFileTempDir}).
 */
@Tag("slow")
class LargeOffsetsTest {
  @TempDir(factory = SparseFileTempDir.class)
  static Path dir;

  private static GraphStore store;

  @BeforeAll
  static void writeStore() {
    SparseLargeStore.write(dir.resolve("store"));
    store = GraphStore.open(dir.resolve("store"), false);
  }

  @AfterAll
  static void close() {
    if (store != null) {
      store.close();
    }
  }

  @Test
  void csrRowsAndPositionsPastTwoToThe31() {
    CsrGraph g = store.csr();
    assertThat(g.numEdges()).isEqualTo(3 * HUB_DEGREE + VERTICES - 3).isGreaterThan(1L << 31);
    assertThat(g.rowStart(2)).isEqualTo(1L << 31);
    assertThat(g.degree(2)).isEqualTo(HUB_DEGREE);
    assertThat(g.neighbor((1L << 31) - 1)).isEqualTo(SparseLargeStore.hubMarker(1, true));
    assertThat(g.neighbor(1L << 31)).isEqualTo(SparseLargeStore.hubMarker(2, false));
    assertThat(g.neighbor(3 * HUB_DEGREE - 1)).isEqualTo(SparseLargeStore.hubMarker(2, true));
    for (int v : new int[] {3, 4, 131_075, VERTICES - 1}) {
      assertThat(g.rowStart(v)).isEqualTo(3 * HUB_DEGREE + v - 3);
      assertThat(g.degree(v)).isEqualTo(1);
      assertThat(g.neighbor(g.rowStart(v))).isEqualTo(SparseLargeStore.neighborOf(v));
    }
  }

  @Test
  void featureRowsAcrossTheTwoToThe31And32ByteBoundaries() {
    int[] ids = {SparseLargeStore.WRITTEN_ROWS[0], 200_000};
    int[] all = new int[SparseLargeStore.WRITTEN_ROWS.length + 1];
    System.arraycopy(SparseLargeStore.WRITTEN_ROWS, 0, all, 0, all.length - 1);
    all[all.length - 1] = ids[1]; // a hole: zeros
    float[] out = new float[all.length * DIM];
    store.features().gather(all, 0, all.length, out, 0);
    for (int i = 0; i < all.length - 1; i++) {
      for (int c = 0; c < DIM; c++) {
        if (out[i * DIM + c] != SparseLargeStore.feature(all[i], c)) {
          throw new AssertionError("row " + all[i] + " column " + c + ": " + out[i * DIM + c]);
        }
      }
    }
    for (int c = 0; c < DIM; c++) {
      assertThat(out[(all.length - 1) * DIM + c]).isZero();
    }
  }

  @Test
  void manifestListsFileSizesPastTwoToThe32() {
    // Writing the store checksummed every file (17 GB of holes, so not repeated).
    assertThat(store.manifest().files)
        .anySatisfy(
            f -> {
              assertThat(f.path).isEqualTo("features/part-00001.feat");
              assertThat(f.bytes).isEqualTo(64 + 4L * DIM * (VERTICES - 3)).isGreaterThan(1L << 32);
            });
  }

  @Test
  void batchSamplerReadsRowsPastTwoToThe31() {
    int[] seeds = {2, 3, 131_075, VERTICES - 1};
    NeighborSampler sampler = new NeighborSampler(store.csr(), store.vertices(), new int[] {4}, 7);
    MiniBatch b = sampler.newWorker().sample(0, 0, seeds, 0, seeds.length);
    int[] indptr = b.indptr(1);
    int[] indices = b.indices(1);
    int[] nodes = b.nodes();
    assertThat(indptr[1] - indptr[0]).isEqualTo(4); // the hub: 4 of its 2^30 positions
    for (int j = indptr[0]; j < indptr[1]; j++) {
      assertThat(nodes[indices[j]]).isIn(0, 1004, 1005);
    }
    for (int i = 1; i < seeds.length; i++) {
      assertThat(indptr[i + 1] - indptr[i]).isEqualTo(1);
      assertThat(nodes[indices[indptr[i]]]).isEqualTo(SparseLargeStore.neighborOf(seeds[i]));
    }
    assertThat(b.labels()).containsExactly(2, 3, 0, 4);
  }

  @Test
  void nodeSamplerMatchesTheBatchSamplerPastTwoToThe31() {
    int[] seeds = {2, 3, VERTICES - 1};
    NeighborSampler sampler = new NeighborSampler(store.csr(), store.vertices(), new int[] {4}, 7);
    MiniBatch b = sampler.newWorker().sample(0, 0, seeds, 0, seeds.length);
    long batchKey = SampleHash.batchKey(SampleHash.epochKey(7, 0), 0);
    NodeSampler one = new NodeSampler();
    int[] positions = new int[4];
    int[] out = new int[4];
    for (int i = 0; i < seeds.length; i++) {
      int k = one.sampleNeighbors(store.csr(), batchKey, 1, seeds[i], 4, positions, out, 0);
      int[] expected = new int[b.indptr(1)[i + 1] - b.indptr(1)[i]];
      for (int j = 0; j < expected.length; j++) {
        expected[j] = b.nodes()[b.indices(1)[b.indptr(1)[i] + j]];
      }
      assertThat(java.util.Arrays.copyOf(out, k)).containsExactly(expected);
    }
  }

  @Test
  void rowsLongerThanTwoToThe31AreRefusedNotTruncated() {
    CsrGraph hub = new OneHubGraph((1L << 31) + 10);
    NodeSampler one = new NodeSampler();
    assertThatThrownBy(() -> one.sampleNeighbors(hub, 1, 1, 0, 4, new int[4], new int[4], 0))
        .hasMessageContaining("vertex 0 has 2147483658 in-neighbors");
    NeighborSampler sampler = new NeighborSampler(hub, TestGraphs.vertices(2, 0), new int[] {4}, 7);
    assertThatThrownBy(() -> sampler.newWorker().sample(0, 0, new int[] {0}, 0, 1))
        .hasMessageContaining("vertex 0 has 2147483658 in-neighbors");
  }

  /** Vertex 0 with {@code degree} in-neighbors, all vertex 1; vertex 1 with none. */
  private record OneHubGraph(long degree) implements CsrGraph {
    @Override
    public int numVertices() {
      return 2;
    }

    @Override
    public long numEdges() {
      return degree;
    }

    @Override
    public long rowStart(int v) {
      return v == 0 ? 0 : degree;
    }

    @Override
    public long rowEnd(int v) {
      return degree;
    }

    @Override
    public int neighbor(long position) {
      return 1;
    }
  }
}
