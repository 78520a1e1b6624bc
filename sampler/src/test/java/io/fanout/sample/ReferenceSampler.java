package io.fanout.sample;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.VertexTable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The sampling semantics written the obvious way (collections, boxing, no scratch reuse): Floyd's
 * algorithm with a HashSet, a TreeSet for the sorted positions, a LinkedHashMap for dedup.
 */
final class ReferenceSampler {
  private ReferenceSampler() {}

  static MiniBatch sample(
      CsrGraph g, VertexTable vt, int[] fanouts, long seed, int epoch, int batch, int[] seeds) {
    long batchKey = SampleHash.batchKey(SampleHash.epochKey(seed, epoch), batch);
    Map<Integer, Integer> local = new LinkedHashMap<>();
    for (int s : seeds) {
      local.put(s, local.size());
    }
    int layers = fanouts.length;
    int[] sizes = new int[layers + 1];
    sizes[0] = seeds.length;
    int[][] indptr = new int[layers][];
    int[][] indices = new int[layers][];
    for (int h = 1; h <= layers; h++) {
      List<Integer> dsts = new ArrayList<>(local.keySet());
      int[] ptr = new int[dsts.size() + 1];
      List<Integer> ix = new ArrayList<>();
      for (int i = 0; i < dsts.size(); i++) {
        int v = dsts.get(i);
        int degree = (int) g.degree(v);
        int k = fanouts[h - 1] < 0 ? degree : Math.min(fanouts[h - 1], degree);
        TreeSet<Integer> chosen = new TreeSet<>();
        if (k == degree) {
          for (int j = 0; j < degree; j++) {
            chosen.add(j);
          }
        } else {
          long key = SampleHash.nodeKey(batchKey, h, v);
          Set<Integer> s = new HashSet<>();
          for (int j = degree - k; j < degree; j++) {
            long word = SampleHash.draw(key, j);
            int t = referenceBounded(word, j + 1);
            s.add(s.contains(t) ? j : t);
          }
          chosen.addAll(s);
        }
        for (int p : chosen) {
          int u = g.neighbor(g.rowStart(v) + p);
          local.putIfAbsent(u, local.size());
          ix.add(local.get(u));
        }
        ptr[i + 1] = ix.size();
      }
      indptr[h - 1] = ptr;
      indices[h - 1] = ix.stream().mapToInt(Integer::intValue).toArray();
      sizes[h] = local.size();
    }
    int[] labels = new int[seeds.length];
    for (int i = 0; i < seeds.length; i++) {
      labels[i] = vt.label(seeds[i]);
    }
    int[] nodes = local.keySet().stream().mapToInt(Integer::intValue).toArray();
    return new MiniBatch(epoch, batch, nodes, sizes, indptr, indices, labels);
  }

  /** floor(word * bound / 2^64) with unsigned word, by BigInteger. */
  static int referenceBounded(long word, int bound) {
    java.math.BigInteger w = new java.math.BigInteger(Long.toUnsignedString(word));
    return w.multiply(java.math.BigInteger.valueOf(bound)).shiftRight(64).intValueExact();
  }
}
