package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The steps of the typed neighborhood layout, run in one JVM on a store small enough to order by
 * hand, in any partition order, with the pairs in any order and a partition laid out twice (a
 * retried task); and the regrouping against a plain reference on random partitions.
 */
class TypedNeighborhoodOrderTest {
  @TempDir Path tmp;

  /**
   * Target {@code t} (4 vertices, training 1 and 3, partitions {@code [0,2) [2,4)}), {@code u} (4
   * vertices, one partition), {@code w} (2 vertices, no features). Edges: {@code u -> t} u1->t1,
   * u1->t3, u2->t3; {@code u -> u} u0->u1, u3->u1, u1->u2; {@code w -> t} w0->t3; {@code u -> w}
   * u1->w0; {@code t -> t} t0->t3; {@code t -> u} t2->u0.
   *
   * <p>First-use keys: seed 1 reaches t1 (1,0), u1 (1,1), u0 and u3 (1,2); seed 3 reaches t3 (3,0),
   * u2, w0 and t0 (3,1); t2 and w1 no seed. So seed-groups orders t's partitions t1, t0 and t3, t2
   * and u as u1, u0, u3, u2. Groups: 1 for t1, u0, u1, u3; 3 for t0, t3, u2, w0; t2 and w1 their
   * own, after the seeds'. Drawn by: u1 by t1 (1), t3, u2 and w0 (3): 3 beats its own group's 1 + 1
   * and u1 joins group 3; t2 by u0 (1) ties its own group and joins the smaller, 1; every other row
   * keeps its group. So t is t1, t0 and t2, t3; u is u0, u3 (group 1), u1, u2 (group 3).
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
        .type("u", 4, 1, new float[] {20, 21, 22, 23}, null, null)
        .type("w", 2, 0, null, null, null)
        .relation("ut", "u", "t", new int[] {1, 1, 2}, new int[] {1, 3, 3})
        .relation("uu", "u", "u", new int[] {0, 3, 1}, new int[] {1, 1, 2})
        .relation("wt", "w", "t", new int[] {0}, new int[] {3})
        .relation("uw", "u", "w", new int[] {1}, new int[] {0})
        .relation("tt", "t", "t", new int[] {0}, new int[] {3})
        .relation("tu", "t", "u", new int[] {2}, new int[] {0})
        .build();
  }

  @Test
  void theStepsOrderATinyStoreAsByHandInAnyPartitionOrderAndWhenRetried() throws IOException {
    Path store = tmp.resolve("store");
    StoreManifest m =
        TypedStoreFixtures.write(store, graph(), new int[][] {{2, 2}, {4}, {2}}, new int[3][][]);
    Path data = m.dataRoot(store);
    TypedStagedGraph g = TypedStagedGraph.of(m, store.toString());
    long[] starts = g.globalStarts();
    Map<Long, Long> keys = keys(data, g);
    // global ids: t 0..3, u 4..7, w 8..9
    assertThat(keys)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(0L, 10L, 1L, 3L, 3L, 9L, 4L, 5L, 5L, 4L, 6L, 10L, 7L, 5L, 8L, 10L));
    assertThat(TypedNeighborhoodOrder.seedGroups(g)).isEqualTo(4);
    List<long[]> pairs = new ArrayList<>();
    for (int part = g.partitions() - 1; part >= 0; part--) {
      TypedNeighborhoodOrder.drawnBy(
          data,
          g,
          part,
          partKeys(keys, starts, part),
          (id, grp) -> pairs.add(new long[] {id, grp}));
    }
    // (u1: t1's 1, t3's, u2's and w0's 3), (u2: 3), (u0, u3: u1's 1), (t0: 3), (t2: u0's 1)
    assertThat(pairs)
        .extracting(p -> p[0] + ":" + p[1])
        .containsExactlyInAnyOrder("5:1", "5:3", "6:3", "4:1", "7:1", "5:3", "5:3", "0:3", "2:1");
    Path feat = data.resolve("types/u").resolve(StoreLayout.featuresFile(0));
    byte[] before = Files.readAllBytes(feat);
    TypedSeedGroupOrder.start(data, g, FeatureLayoutKind.NEIGHBORHOOD);
    for (int part : new int[] {3, 2, 1, 0, 2}) {
      List<long[]> mine = new ArrayList<>();
      for (long[] p : pairs) {
        if (TypedStagedGraph.partitionOf(starts, p[0]) == part) {
          mine.add(0, p); // reversed: the pairs' order does not matter
        }
      }
      long[] ids = mine.stream().mapToLong(p -> p[0]).toArray();
      long[] groups = mine.stream().mapToLong(p -> p[1]).toArray();
      TypedNeighborhoodOrder.layOut(
          data, g, part, partKeys(keys, starts, part), ids, groups, ids.length);
    }
    TypedSeedGroupOrder.finish(data, g);
    assertThat(positions(data, "t", 4)).containsExactly(1, 0, 2, 3);
    assertThat(positions(data, "u", 4)).containsExactly(0, 2, 3, 1);
    assertThat(Files.exists(data.resolve("types/w/features"))).isFalse();
    Path order = data.resolve("types/u").resolve(StoreLayout.FEATURE_ORDER);
    assertThat(
            java.nio.ByteBuffer.wrap(Files.readAllBytes(order))
                .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .getInt(FeatureRowOrder.KIND))
        .isEqualTo(FeatureLayoutKind.NEIGHBORHOOD.ordinal());
    byte[] after = Files.readAllBytes(feat);
    int h = StoreLayout.HEADER_BYTES;
    int[] rowAt = {0, 3, 1, 2}; // u0, u3, u1, u2
    for (int pos = 0; pos < 4; pos++) {
      assertThat(Arrays.copyOfRange(after, h + 4 * pos, h + 4 * pos + 4))
          .as("position %d", pos)
          .isEqualTo(Arrays.copyOfRange(before, h + 4 * rowAt[pos], h + 4 * rowAt[pos] + 4));
    }
    try (var files = Files.walk(data)) {
      assertThat(files.filter(f -> f.toString().endsWith(".unordered"))).isEmpty();
    }
  }

  /** The first-use keys of {@link TypedSeedGroupOrder}'s two rounds, reduced in one map. */
  private static Map<Long, Long> keys(Path data, TypedStagedGraph g) {
    Map<Long, Long> keys = new HashMap<>();
    TypedSeedGroupOrder.KeySink min = (id, k) -> keys.merge(id, k, Math::min);
    for (int p = 0; p < g.typeStarts()[g.target()].length - 1; p++) {
      TypedSeedGroupOrder.seeds(data, g, p, min);
    }
    long[] starts = g.globalStarts();
    Map<Long, Long> hopOne = new HashMap<>(keys);
    for (int part = 0; part < g.partitions(); part++) {
      final int at = part;
      long[] ids =
          hopOne.keySet().stream()
              .mapToLong(Long::longValue)
              .filter(v -> TypedStagedGraph.partitionOf(starts, v) == at)
              .sorted()
              .toArray();
      long[] k = Arrays.stream(ids).map(hopOne::get).toArray();
      TypedSeedGroupOrder.hopTwo(data, g, part, ids, k, ids.length, min);
    }
    return keys;
  }

  private static long[] partKeys(Map<Long, Long> keys, long[] starts, int part) {
    long[] k = new long[(int) (starts[part + 1] - starts[part])];
    for (int i = 0; i < k.length; i++) {
      k[i] = keys.getOrDefault(starts[part] + i, TypedSeedGroupOrder.UNREACHED);
    }
    return k;
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

  /**
   * The reference: each row's own group and the groups drawn to it counted in a map; the row takes
   * the group of highest count (its own counting one more), the smallest on a tie; rows sorted by
   * (that group, key, row), the unreached keys last.
   */
  @Test
  void rowsJoinTheGroupMostOfTheirDrawersAreInAsAPlainCountSays() {
    SplittableRandom rnd = new SplittableRandom(7);
    for (int round = 0; round < 40; round++) {
      int n = rnd.nextInt(1, 40);
      long first = rnd.nextInt(100);
      long seedGroups = 50;
      long[] keys = new long[n];
      for (int i = 0; i < n; i++) {
        keys[i] =
            rnd.nextInt(4) == 0
                ? TypedSeedGroupOrder.UNREACHED
                : TypedSeedGroupOrder.key(rnd.nextInt(8), rnd.nextInt(3));
      }
      int count = rnd.nextInt(3 * n);
      long[] ids = new long[count];
      long[] groups = new long[count];
      for (int c = 0; c < count; c++) {
        ids[c] = first + rnd.nextInt(n);
        groups[c] = rnd.nextInt(3) == 0 ? seedGroups + rnd.nextInt(200) : rnd.nextInt(8);
      }
      long[] joined = new long[n];
      for (int i = 0; i < n; i++) {
        long own = TypedNeighborhoodOrder.group(seedGroups, first + i, keys[i]);
        Map<Long, Integer> score = new HashMap<>();
        score.put(own, 1);
        for (int c = 0; c < count; c++) {
          if (ids[c] == first + i) {
            score.merge(groups[c], 1, Integer::sum);
          }
        }
        long best = own;
        for (Map.Entry<Long, Integer> e : score.entrySet()) {
          int s = e.getValue();
          int b = score.get(best);
          if (s > b || (s == b && e.getKey() < best)) {
            best = e.getKey();
          }
        }
        joined[i] = best;
      }
      Integer[] rows = new Integer[n];
      for (int i = 0; i < n; i++) {
        rows[i] = i;
      }
      Arrays.sort(
          rows,
          (a, b) ->
              joined[a] != joined[b]
                  ? Long.compare(joined[a], joined[b])
                  : keys[a] != keys[b] ? Long.compare(keys[a], keys[b]) : a - b);
      int[] want = new int[n];
      for (int pos = 0; pos < n; pos++) {
        want[rows[pos]] = pos;
      }
      assertThat(TypedNeighborhoodOrder.order(keys, first, seedGroups, ids, groups, count))
          .as("round %d", round)
          .isEqualTo(want);
    }
  }
}
