package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store's feature rows kept in a {@code feature_layout}: every reader returns the rows of the
 * store without one, the rows really moved, the files do not depend on the thread count, and a
 * store without a layout reads as before.
 */
class FeatureLayoutTest {
  @TempDir Path tmp;

  private static final int[] PARTS = {70, 0, 55, 75};

  @Test
  void neighborhoodOrderPlacesEachSeedThenItsTwoHopsInsideThePartition() {
    // 0 <- 3, 3 <- 5, 1 <- 4, 4 <- 2, 6 outside [0, 6); train: 0 and 1.
    int[][] rows = {{3, 6}, {4}, {}, {5}, {2}, {}, {0}};
    long[] indptr = new long[rows.length + 1];
    int[] idx = Arrays.stream(rows).flatMapToInt(Arrays::stream).toArray();
    for (int v = 0; v < rows.length; v++) {
      indptr[v + 1] = indptr[v] + rows[v].length;
    }
    CsrGraph csr = new ArrayCsrGraph(indptr, idx);
    VertexTable splits = vertices(new byte[] {1, 1, 2, 0, 3, 0, 1});
    int[] pos = NeighborhoodOrder.positions(csr, splits, new long[] {0, 6, 7}, 2);
    // order in [0, 6): 0, 3, 5 (two hops from 0), 1, 4, 2 (two hops from 1); 6 alone.
    assertThat(pos).containsExactly(0, 3, 5, 1, 4, 2, 6);
  }

  @Test
  void aRowJoinsTheGroupMostOfItsInNeighborsAreIn() {
    // seeds 0 and 1 (train); 0 <- 2 <- 3 and 1 <- 7; 4 <- {2, 3} is reached by no seed.
    int[][] rows = {{2}, {7}, {3}, {}, {2, 3}, {}, {}, {}};
    long[] indptr = new long[rows.length + 1];
    int[] idx = Arrays.stream(rows).flatMapToInt(Arrays::stream).toArray();
    for (int v = 0; v < rows.length; v++) {
      indptr[v + 1] = indptr[v] + rows[v].length;
    }
    CsrGraph csr = new ArrayCsrGraph(indptr, idx);
    VertexTable splits = vertices(new byte[] {1, 1, 0, 0, 0, 0, 0, 0});
    int[] pos = NeighborhoodOrder.positions(csr, splits, new long[] {0, 8}, 1);
    // groups: {0, 2, 3} + 4 (both its in-neighbors are there), {1, 7}, then 5, 6.
    assertThat(pos).containsExactly(0, 4, 1, 2, 3, 6, 7, 5);
  }

  @Test
  void seedGroupsPlaceEachSeedThenTheTwoHopRowsNoEarlierSeedPlacedThenTheRest() {
    // in-neighbors: 0 <- {2, 3}, 1 <- {3, 4}, 2 <- 5, 4 <- 6; train: 0 and 1; 7 reached by none.
    int[][] rows = {{2, 3}, {3, 4}, {5}, {}, {6}, {}, {}, {}};
    CsrGraph csr = csr(rows);
    VertexTable splits = vertices(new byte[] {1, 1, 0, 0, 0, 0, 0, 0});
    int[] pos = SeedGroupOrder.positions(csr, splits, new long[] {0, 8}, 1);
    // 0, 2, 3, 5 (seed 0's two hops), 1, 4, 6 (seed 1's, 3 placed already), 7 (reached by none).
    assertThat(pos).containsExactly(0, 4, 1, 2, 5, 3, 6, 7);
  }

  @Test
  void seedGroupsEqualASetBasedReferenceOnRandomGraphs() {
    for (long seed = 1; seed <= 6; seed++) {
      java.util.SplittableRandom rnd = new java.util.SplittableRandom(seed);
      int n = 400;
      int[][] rows = new int[n][];
      byte[] splits = new byte[n];
      for (int v = 0; v < n; v++) {
        rows[v] = rnd.ints(rnd.nextInt(6), 0, n).sorted().toArray();
        // sparse seeds; the last partition has none, so all its vertices are seeds
        splits[v] = (byte) (v < 300 && rnd.nextInt(10) == 0 ? 1 : rnd.nextInt(2) * 2);
      }
      long[] starts = {0, 120, 120, 300, 400};
      CsrGraph csr = csr(rows);
      int[] want = seedGroupsReference(rows, splits, starts);
      for (int threads : new int[] {1, 3}) {
        int[] got = SeedGroupOrder.positions(csr, vertices(splits), starts, threads);
        assertThat(got).as("seed %d, %d threads", seed, threads).isEqualTo(want);
      }
      FeatureRowOrder.check(want, starts, "test");
      assertThat(want).isNotEqualTo(identity(n));
    }
  }

  /**
   * {@link SeedGroupOrder} spelled with sets: each seed's reach (itself, then hop by hop in CSR
   * order), the rows in the order the seeds first reach them, then the rest by id.
   */
  private static int[] seedGroupsReference(int[][] rows, byte[] splits, long[] starts) {
    int[] pos = new int[rows.length];
    for (int p = 0; p + 1 < starts.length; p++) {
      int lo = (int) starts[p];
      int hi = (int) starts[p + 1];
      List<Integer> seeds = new ArrayList<>();
      for (int v = lo; v < hi; v++) {
        if (splits[v] == 1) {
          seeds.add(v);
        }
      }
      if (seeds.isEmpty()) {
        for (int v = lo; v < hi; v++) {
          seeds.add(v);
        }
      }
      List<Integer> order = new ArrayList<>();
      for (int s : seeds) {
        java.util.LinkedHashSet<Integer> r = new java.util.LinkedHashSet<>(List.of(s));
        List<Integer> level = List.of(s);
        for (int hop = 0; hop < 2; hop++) {
          List<Integer> next = new ArrayList<>();
          for (int u : level) {
            for (int w : rows[u]) {
              if (w >= lo && w < hi && r.add(w)) {
                next.add(w);
              }
            }
          }
          level = next;
        }
        for (int w : r) {
          if (!order.contains(w)) {
            order.add(w);
          }
        }
      }
      for (int v = lo; v < hi; v++) {
        if (!order.contains(v)) {
          order.add(v);
        }
      }
      for (int i = 0; i < order.size(); i++) {
        pos[order.get(i)] = lo + i;
      }
    }
    return pos;
  }

  private static CsrGraph csr(int[][] rows) {
    long[] indptr = new long[rows.length + 1];
    int[] idx = Arrays.stream(rows).flatMapToInt(Arrays::stream).toArray();
    for (int v = 0; v < rows.length; v++) {
      indptr[v + 1] = indptr[v] + rows[v].length;
    }
    return new ArrayCsrGraph(indptr, idx);
  }

  @Test
  void neighborhoodOrderIsAPermutationPerPartitionWhateverTheThreads() {
    StoreFixtures.Graph g = StoreFixtures.random(5, 200, 6, 3);
    try (GraphStore s = open("plain", g, null, null, null, 1)) {
      long[] starts = FeatureRelayout.vertexStarts(s);
      int[] one = FeatureRelayout.positions(s, FeatureLayoutKind.NEIGHBORHOOD, 1);
      int[] four = FeatureRelayout.positions(s, FeatureLayoutKind.NEIGHBORHOOD, 4);
      assertThat(four).isEqualTo(one);
      FeatureRowOrder.check(one, starts, "test");
      assertThat(one).isNotEqualTo(identity(200));
    }
  }

  @Test
  void everyReaderReturnsTheRowsOfTheStoreWithoutALayout() {
    StoreFixtures.Graph g = StoreFixtures.random(7, 200, 6, 5);
    for (FeatureParams params :
        new FeatureParams[] {null, FeatureParams.plain(StoreLayout.ENCODING_F16, 5)}) {
      String tag = params == null ? "f32" : "f16";
      try (GraphStore plain = open("plain-" + tag, g, params, null, null, 1);
          GraphStore moved =
              open(
                  "moved-" + tag,
                  g,
                  params,
                  FeatureLayoutKind.NEIGHBORHOOD,
                  FeatureRelayout.positions(plain, FeatureLayoutKind.NEIGHBORHOOD, 2),
                  2)) {
        assertThat(plain.featureRowOrder().isIdentity()).isTrue();
        assertThat(moved.featureRowOrder().isIdentity()).isFalse();
        assertThat(moved.manifest().featureLayout).isEqualTo("neighborhood");
        int[] ids = new int[200];
        for (int i = 0; i < ids.length; i++) {
          ids[i] = (i * 37 + 11) % 200;
        }
        float[] a = new float[200 * 5];
        float[] b = new float[200 * 5];
        plain.features().gather(ids, 0, 200, a, 0);
        moved.features().gather(ids, 0, 200, b, 0);
        assertThat(b).as(tag).isEqualTo(a);
        int rb = plain.featureParams().rowBytes();
        byte[] ea = new byte[200 * rb];
        byte[] eb = new byte[200 * rb];
        plain.features().gatherEncoded(ids, 0, 200, ea, 0);
        moved.features().gatherEncoded(ids, 0, 200, eb, 0);
        assertThat(eb).as(tag).isEqualTo(ea);
        for (int p = 0; p < PARTS.length; p++) {
          if (PARTS[p] == 0) {
            continue;
          }
          StorePartition sp = StorePartition.of(moved.root(), moved.manifest(), p);
          StorePartition pp = StorePartition.of(plain.root(), plain.manifest(), p);
          byte[] ra = new byte[rb];
          byte[] rm = new byte[rb];
          for (long v = sp.firstVertex(); v < sp.firstVertex() + sp.numVertices(); v++) {
            pp.encodedFeatures((int) v, rb, ra, 0);
            sp.encodedFeatures((int) v, rb, rm, 0);
            assertThat(rm).isEqualTo(ra);
          }
        }
        assertThat(moved.verifyChecksums()).isPositive();
      }
    }
  }

  @Test
  void rowsMoveOnDiskAndTheFilesDoNotDependOnThreads() throws Exception {
    StoreFixtures.Graph g = StoreFixtures.random(9, 200, 6, 4);
    int[] pos;
    try (GraphStore plain = open("plain", g, null, null, null, 1)) {
      pos = FeatureRelayout.positions(plain, FeatureLayoutKind.NEIGHBORHOOD, 1);
    }
    try (GraphStore one = open("one", g, null, FeatureLayoutKind.NEIGHBORHOOD, pos, 1);
        GraphStore three = open("three", g, null, FeatureLayoutKind.NEIGHBORHOOD, pos, 3);
        GraphStore plain = GraphStore.open(tmp.resolve("plain"))) {
      for (int p = 0; p < PARTS.length; p++) {
        String f = StoreLayout.featuresFile(p);
        assertThat(Files.readAllBytes(three.dataRoot().resolve(f)))
            .isEqualTo(Files.readAllBytes(one.dataRoot().resolve(f)));
        if (p == 0) {
          assertThat(Files.readAllBytes(one.dataRoot().resolve(f)))
              .isNotEqualTo(Files.readAllBytes(plain.dataRoot().resolve(f)));
        }
      }
      String order = StoreLayout.FEATURE_ORDER;
      assertThat(Files.readAllBytes(three.dataRoot().resolve(order)))
          .isEqualTo(Files.readAllBytes(one.dataRoot().resolve(order)));
      assertThat(one.manifest().file(order).crc32c).isEqualTo(three.manifest().file(order).crc32c);
      assertThat(Files.exists(plain.dataRoot().resolve(order))).isFalse();
      assertThat(Files.readString(plain.root().resolve(StoreLayout.MANIFEST)))
          .doesNotContain("feature_layout");
    }
  }

  @Test
  void aLayoutThatLeavesItsPartitionOrRepeatsARowIsRefused() {
    int[] pos = identity(200);
    pos[0] = 199; // partition 0 is [0, 70)
    assertThatThrownBy(() -> FeatureRowOrder.check(pos, new long[] {0, 70, 200}, "layout"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("id 0 at position 199");
    StoreManifest m = new StoreManifest();
    m.featureLayout = "zigzag";
    m.featureDim = 4;
    assertThatThrownBy(() -> m.validate("manifest.json"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("unknown feature_layout 'zigzag'");
  }

  private GraphStore open(
      String name,
      StoreFixtures.Graph g,
      FeatureParams params,
      FeatureLayoutKind layout,
      int[] positions,
      int threads) {
    Path dir = tmp.resolve(name);
    StoreFixtures.write(dir, g, PARTS, params, layout, positions, threads);
    return GraphStore.open(dir);
  }

  private static int[] identity(int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    return a;
  }

  private static VertexTable vertices(byte[] splits) {
    return new VertexTable() {
      @Override
      public int numVertices() {
        return splits.length;
      }

      @Override
      public int label(int v) {
        return 0;
      }

      @Override
      public byte split(int v) {
        return splits[v];
      }
    };
  }
}
