package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The steps of the typed seed-groups layout, run in one JVM on a store small enough to order by
 * hand, in any partition order and with a partition laid out twice (a retried task); and the
 * in-partition order and partition lookup against plain references.
 */
class TypedSeedGroupOrderTest {
  @TempDir Path tmp;

  /**
   * Target {@code t} (4 vertices, training 1 and 3, partitions {@code [0,2) [2,4)}), {@code u} (3
   * vertices, one partition), {@code w} (2 vertices, no features). {@code u -> t}: u0->t3, u2->t1,
   * u1->t1; {@code t -> u}: t0->u2; {@code w -> u}: w1->u1; {@code u -> w}: u0->w0.
   *
   * <p>Seed 1: t1 (1,0); u2, u1 (1,1); t0 via u2 and w1 via u1 (1,2). Seed 3: t3 (3,0); u0 (3,1);
   * nothing at hop 2 (u0 has no in-neighbor). t2 and w0 are not reached (w0 is reached from u0 only
   * along an out-edge). So t's partition 0 is t1, t0; partition 1 is t3, t2; u is u1, u2, u0.
   */
  static ArrayTypedGraph graph() {
    return ArrayTypedGraph.builder()
        .type(
            "t",
            4,
            1,
            new float[] {10, 11, 12, 13},
            new int[] {0, 1, 0, 1},
            new byte[] {0, 1, 2, 1})
        .type("u", 3, 2, new float[] {20, 20.5f, 21, 21.5f, 22, 22.5f}, null, null)
        .type("w", 2, 0, null, null, null)
        .relation("ut", "u", "t", new int[] {0, 2, 1}, new int[] {3, 1, 1})
        .relation("tu", "t", "u", new int[] {0}, new int[] {2})
        .relation("wu", "w", "u", new int[] {1}, new int[] {1})
        .relation("uw", "u", "w", new int[] {0}, new int[] {0})
        .build();
  }

  @Test
  void theStepsOrderATinyStoreAsByHandInAnyPartitionOrderAndWhenRetried() throws IOException {
    Path store = tmp.resolve("store");
    StoreManifest m =
        TypedStoreFixtures.write(store, graph(), new int[][] {{2, 2}, {3}, {2}}, new int[3][][]);
    Path data = m.dataRoot(store);
    TypedStagedGraph g = TypedStagedGraph.of(m, store.toString());
    assertThat(g.target()).isZero();
    assertThat(g.everySeed()).isFalse();
    Map<Long, Long> keys = new HashMap<>();
    TypedSeedGroupOrder.KeySink min = (id, k) -> keys.merge(id, k, Math::min);
    for (int p = 1; p >= 0; p--) {
      TypedSeedGroupOrder.seeds(data, g, p, min);
    }
    long[] starts = g.globalStarts();
    assertThat(starts).containsExactly(0, 2, 4, 7, 9);
    Map<Long, Long> hopOne = new HashMap<>(keys);
    for (int part = g.partitions() - 1; part >= 0; part--) {
      long[] ids = hopOne.keySet().stream().mapToLong(Long::longValue).sorted().toArray();
      final int at = part;
      ids = Arrays.stream(ids).filter(v -> TypedStagedGraph.partitionOf(starts, v) == at).toArray();
      long[] k = Arrays.stream(ids).map(hopOne::get).toArray();
      TypedSeedGroupOrder.hopTwo(data, g, part, ids, k, ids.length, min);
    }
    // global ids: t 0..3, u 4..6, w 7..8
    assertThat(keys)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(1L, 3L, 3L, 9L, 6L, 4L, 5L, 4L, 4L, 10L, 0L, 5L, 8L, 5L));
    Path feat = data.resolve("types/t").resolve(StoreLayout.featuresFile(0));
    byte[] before = Files.readAllBytes(feat);
    TypedSeedGroupOrder.start(data, g, FeatureLayoutKind.SEED_GROUPS);
    for (int part : new int[] {3, 2, 1, 0, 0}) {
      long[] partKeys = new long[(int) (starts[part + 1] - starts[part])];
      for (int i = 0; i < partKeys.length; i++) {
        partKeys[i] = keys.getOrDefault(starts[part] + i, TypedSeedGroupOrder.UNREACHED);
      }
      TypedSeedGroupOrder.layOut(data, g, part, partKeys);
    }
    TypedSeedGroupOrder.finish(data, g);
    assertThat(positions(data, "t", 4)).containsExactly(1, 0, 3, 2);
    assertThat(positions(data, "u", 3)).containsExactly(2, 0, 1);
    assertThat(Files.exists(data.resolve("types/w/features"))).isFalse();
    byte[] after = Files.readAllBytes(feat);
    int h = StoreLayout.HEADER_BYTES;
    assertThat(Arrays.copyOf(after, h)).isEqualTo(Arrays.copyOf(before, h));
    // partition 0 of t: t1's row, then t0's
    assertThat(Arrays.copyOfRange(after, h, h + 4))
        .isEqualTo(Arrays.copyOfRange(before, h + 4, h + 8));
    assertThat(Arrays.copyOfRange(after, h + 4, h + 8))
        .isEqualTo(Arrays.copyOfRange(before, h, h + 4));
    try (var files = Files.walk(data)) {
      assertThat(files.filter(f -> f.toString().endsWith(".unordered"))).isEmpty();
    }
  }

  @Test
  void aManifestRecordsATypedLayoutOnlyOnTypesWithFeatures() {
    Path store = tmp.resolve("store");
    StoreManifest m =
        TypedStoreFixtures.write(store, graph(), new int[][] {{2, 2}, {3}, {2}}, new int[3][][]);
    m.types.get(0).featureLayout = "seed-groups";
    assertThat(StoreManifest.fromJson("m", m.toJson()).types.get(0).featureLayout)
        .isEqualTo("seed-groups");
    m.types.get(0).featureLayout = "neighborhood";
    assertThat(StoreManifest.fromJson("m", m.toJson()).types.get(0).featureLayout)
        .isEqualTo("neighborhood");
    for (String[] bad :
        new String[][] {{"0", "identity"}, {"2", "seed-groups"}, {"2", "neighborhood"}}) {
      StoreManifest b = StoreManifest.fromJson("m", m.toJson());
      b.types.get(Integer.parseInt(bad[0])).featureLayout = bad[1];
      assertThatThrownBy(() -> StoreManifest.fromJson("m", b.toJson()))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("feature_layout '" + bad[1] + "'");
    }
  }

  private static int[] positions(Path data, String type, int n) {
    Path file = data.resolve(StoreLayout.typeDir(type)).resolve(StoreLayout.FEATURE_ORDER);
    FeatureRowOrder o = FeatureRowOrder.mapped(new ChunkedMapping(file), n);
    int[] out = new int[n];
    for (int v = 0; v < n; v++) {
      out[v] = o.position(v);
    }
    return out;
  }

  @Test
  void rowsAreOrderedByKeyThenIdWithTheUnreachedLast() {
    SplittableRandom rnd = new SplittableRandom(4);
    for (int round = 0; round < 20; round++) {
      int n = rnd.nextInt(60);
      long[] keys = new long[n];
      for (int i = 0; i < n; i++) {
        keys[i] = rnd.nextInt(4) == 0 ? TypedSeedGroupOrder.UNREACHED : rnd.nextLong(1L << 40);
        if (i > 0 && rnd.nextInt(3) == 0) {
          keys[i] = keys[rnd.nextInt(i)]; // ties broken by id
        }
      }
      Integer[] rows = new Integer[n];
      for (int i = 0; i < n; i++) {
        rows[i] = i;
      }
      Arrays.sort(rows, (a, b) -> keys[a] != keys[b] ? Long.compare(keys[a], keys[b]) : a - b);
      int[] want = new int[n];
      for (int pos = 0; pos < n; pos++) {
        want[rows[pos]] = pos;
      }
      assertThat(TypedSeedGroupOrder.order(keys)).isEqualTo(want);
    }
  }

  @Test
  void anIdBelongsToTheNonEmptyPartitionThatHoldsIt() {
    long[] starts = {0, 3, 3, 7, 7, 7, 9};
    int[] want = {0, 0, 0, 2, 2, 2, 2, 5, 5};
    for (int v = 0; v < want.length; v++) {
      assertThat(TypedStagedGraph.partitionOf(starts, v)).as("id %d", v).isEqualTo(want[v]);
    }
  }

  @Test
  void keysCompareBySeedThenHop() {
    assertThat(TypedSeedGroupOrder.key(2, 2)).isLessThan(TypedSeedGroupOrder.key(3, 0));
    assertThat(TypedSeedGroupOrder.expands(TypedSeedGroupOrder.key(5, 1))).isTrue();
    assertThat(TypedSeedGroupOrder.expands(TypedSeedGroupOrder.key(5, 0))).isFalse();
    assertThat(TypedSeedGroupOrder.expands(TypedSeedGroupOrder.UNREACHED)).isFalse();
  }
}
