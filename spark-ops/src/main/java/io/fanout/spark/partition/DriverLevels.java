package io.fanout.spark.partition;

import io.fanout.graph.MultilevelPartitioner;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.XXH64;

/**
 * The coarse levels of {@link MultilevelGraphPartitioner} in the driver, once a level is within
 * {@link MultilevelGraphPartitioner#DRIVER_VERTICES} and {@link
 * MultilevelGraphPartitioner#DRIVER_EDGES}: the same coarsening, initial partition and refinement
 * as its Spark jobs, step for step on arrays, with the same hashes (Spark's {@code xxhash64}) and
 * the same orders, so the assignment is the one the Spark jobs give ({@code
 * MultilevelGraphPartitionerTest} compares the two).
 */
final class DriverLevels {
  private DriverLevels() {}

  /** Spark's {@code xxhash64} seed. */
  private static final long XXHASH_SEED = 42L;

  /**
   * The refined parts of {@code g}, level {@code level} of the scheme: coarsens further while a
   * level has more than {@code coarseVertices} vertices (and fewer than {@code maxLevels} levels
   * exist), partitions the coarsest level, then projects and refines back up to {@code g}.
   */
  static int[] partition(
      LevelGraph g,
      int level,
      int coarseVertices,
      int maxLevels,
      int k,
      long maxPart,
      long maxVw,
      long seed) {
    List<LevelGraph> levels = new ArrayList<>();
    List<int[]> maps = new ArrayList<>(); // maps.get(i): vertex of levels.get(i) -> of i + 1
    levels.add(g);
    LevelGraph cur = g;
    while (cur.n() > coarseVertices && level + levels.size() < maxLevels) {
      int[] map = new int[cur.n()];
      LevelGraph next = coarsen(cur, maxVw, seed, level + levels.size(), map);
      if (next.n() > 0.95 * cur.n()) {
        break;
      }
      maps.add(map);
      levels.add(next);
      cur = next;
    }
    int[] part = initial(cur, k, seed);
    for (int l = levels.size() - 1; l >= 0; l--) {
      if (l < levels.size() - 1) {
        int[] map = maps.get(l);
        int[] fine = new int[map.length];
        for (int u = 0; u < map.length; u++) {
          fine[u] = part[map[u]];
        }
        part = fine;
      }
      refine(levels.get(l), part, k, maxPart, seed, level + l);
    }
    return part;
  }

  /** The coarsest graph's parts by {@link MultilevelPartitioner}. */
  static int[] initial(LevelGraph g, int k, long seed) {
    int[] ew = new int[g.w().length];
    for (int j = 0; j < ew.length; j++) {
      ew[j] = (int) Math.min(Integer.MAX_VALUE, g.w()[j]);
    }
    int[] vw = new int[g.n()];
    for (int i = 0; i < vw.length; i++) {
      vw[i] = (int) Math.min(Integer.MAX_VALUE, g.vw()[i]);
    }
    return MultilevelPartitioner.partition(
        new MultilevelPartitioner.Graph(g.n(), g.xadj(), g.adj(), ew, vw),
        k,
        MultilevelGraphPartitioner.IMBALANCE,
        seed);
  }

  /**
   * One coarsening step (Spark: {@code coarsen}): each vertex picks the neighbor of largest
   * (weight, tie hash, id) among those it may merge with; mutual picks merge into the smaller id.
   * Fills {@code map} with each vertex's coarse vertex.
   */
  static LevelGraph coarsen(LevelGraph g, long maxVw, long seed, int level, int[] map) {
    int n = g.n();
    long[] ids = g.ids();
    long[] vw = g.vw();
    int[] xadj = g.xadj();
    int[] adj = g.adj();
    long[] w = g.w();
    int[] pick = new int[n];
    for (int u = 0; u < n; u++) {
      int best = -1;
      long bestW = 0;
      long bestT = 0;
      for (int j = xadj[u]; j < xadj[u + 1]; j++) {
        int v = adj[j];
        if (vw[u] + vw[v] > maxVw) {
          continue;
        }
        long a = Math.min(ids[u], ids[v]);
        long b = Math.max(ids[u], ids[v]);
        long t = XXH64.hashLong(b, XXH64.hashLong(a, levelHash(seed, level)));
        // v ascends within the row, so a later equal (w, t) has the larger id
        if (best < 0 || w[j] > bestW || (w[j] == bestW && t >= bestT)) {
          best = v;
          bestW = w[j];
          bestT = t;
        }
      }
      pick[u] = best;
    }
    // the coarse vertex of u is the smaller of u and its mutual pick; ids ascend with indexes
    int nc = 0;
    for (int u = 0; u < n; u++) {
      int m = pick[u];
      if (m >= 0 && pick[m] == u && m < u) {
        map[u] = map[m];
      } else {
        map[u] = nc++;
      }
    }
    long[] cids = new long[nc];
    long[] cvw = new long[nc];
    int[] first = new int[nc];
    int[] second = new int[nc];
    Arrays.fill(second, -1);
    for (int u = 0; u < n; u++) {
      int c = map[u];
      if (cvw[c] == 0) {
        cids[c] = ids[u];
        first[c] = u;
      } else {
        second[c] = u;
      }
      cvw[c] += vw[u];
    }
    // coarse edges: the summed weights between different coarse vertices
    long[] sum = new long[nc];
    int[] touched = new int[nc];
    int edges = 0;
    int[] src = new int[adj.length];
    int[] dst = new int[adj.length];
    long[] cw = new long[adj.length];
    for (int c = 0; c < nc; c++) {
      int count = 0;
      for (int member : new int[] {first[c], second[c]}) {
        if (member < 0) {
          continue;
        }
        for (int j = xadj[member]; j < xadj[member + 1]; j++) {
          int d = map[adj[j]];
          if (d == c) {
            continue;
          }
          if (sum[d] == 0) {
            touched[count++] = d;
          }
          sum[d] += w[j];
        }
      }
      for (int i = 0; i < count; i++) {
        int d = touched[i];
        src[edges] = c;
        dst[edges] = d;
        cw[edges] = sum[d];
        edges++;
        sum[d] = 0;
      }
    }
    return LevelGraph.of(
        cids, cvw, Arrays.copyOf(src, edges), Arrays.copyOf(dst, edges), Arrays.copyOf(cw, edges));
  }

  /**
   * Balanced label propagation on one level (Spark: {@code refine}), in place on {@code part}: per
   * pass, the vertices of the pass's hash half with a positive gain apply to their best-connected
   * other part (largest (connection, tie hash, part)); each part admits applicants by (gain
   * descending, tie hash, id) while their running weight stays within its room.
   */
  static void refine(LevelGraph g, int[] part, int k, long maxPart, long seed, int level) {
    int n = g.n();
    long[] ids = g.ids();
    long[] vw = g.vw();
    int[] xadj = g.xadj();
    int[] adj = g.adj();
    long[] w = g.w();
    long[] load = loads(g, part, k);
    int passes =
        level == 0
            ? MultilevelGraphPartitioner.REFINE_PASSES
            : MultilevelGraphPartitioner.COARSE_REFINE_PASSES;
    long[] conn = new long[k];
    boolean[] seen = new boolean[k];
    int[] touched = new int[k];
    int[] to = new int[n];
    long[] gain = new long[n];
    long[] tie = new long[n];
    int idle = 0;
    for (int pass = 0; pass < passes; pass++) {
      long passHash = XXH64.hashInt(pass, levelHash(seed, level));
      List<Integer> applicants = new ArrayList<>();
      for (int u = 0; u < n; u++) {
        if (xadj[u] == xadj[u + 1]
            || Math.floorMod(XXH64.hashLong(ids[u], passHash), 2L) != (pass & 1)) {
          continue;
        }
        int count = 0;
        for (int j = xadj[u]; j < xadj[u + 1]; j++) {
          int q = part[adj[j]];
          if (!seen[q]) {
            seen[q] = true;
            touched[count++] = q;
          }
          conn[q] += w[j];
        }
        int p = part[u];
        long own = conn[p];
        int bestQ = -1;
        long bestC = 0;
        long bestT = 0;
        long uHash = XXH64.hashLong(ids[u], passHash);
        for (int i = 0; i < count; i++) {
          int q = touched[i];
          if (q != p) {
            long t = XXH64.hashInt(q, uHash);
            if (bestQ < 0
                || conn[q] > bestC
                || (conn[q] == bestC && (t > bestT || (t == bestT && q > bestQ)))) {
              bestQ = q;
              bestC = conn[q];
              bestT = t;
            }
          }
          conn[q] = 0;
          seen[q] = false;
        }
        if (bestQ >= 0 && bestC > own) {
          to[u] = bestQ;
          gain[u] = bestC - own;
          tie[u] = bestT;
          applicants.add(u);
        }
      }
      applicants.sort(
          (a, b) -> {
            if (to[a] != to[b]) {
              return Integer.compare(to[a], to[b]);
            }
            if (gain[a] != gain[b]) {
              return Long.compare(gain[b], gain[a]);
            }
            if (tie[a] != tie[b]) {
              return Long.compare(tie[a], tie[b]);
            }
            return Integer.compare(a, b);
          });
      long moved = 0;
      long filled = 0;
      int group = -1;
      for (int u : applicants) {
        if (to[u] != group) {
          group = to[u];
          filled = 0;
        }
        filled += vw[u];
        if (filled <= maxPart - load[group]) {
          part[u] = group;
          moved++;
        }
      }
      load = loads(g, part, k);
      idle = moved == 0 ? idle + 1 : 0;
      if (idle == 2) { // both halves of the vertices found nothing to gain
        break;
      }
    }
  }

  /** {@code xxhash64(seed, level)} as Spark folds it, to continue with further columns. */
  private static long levelHash(long seed, int level) {
    return XXH64.hashInt(level, XXH64.hashLong(seed, XXHASH_SEED));
  }

  /** Each part's vertex weight. */
  static long[] loads(LevelGraph g, int[] part, int k) {
    long[] load = new long[k];
    for (int u = 0; u < part.length; u++) {
      load[part[u]] += g.vw()[u];
    }
    return load;
  }
}
