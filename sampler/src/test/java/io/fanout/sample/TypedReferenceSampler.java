package io.fanout.sample;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedSchema;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A plain restatement of the typed sampling rule with maps and lists: per hop, relations in order,
 * every destination-type node reached before the hop, its draws keyed as specified; new nodes
 * appended to their type's list in first-edge order.
 */
final class TypedReferenceSampler {
  private TypedReferenceSampler() {}

  /** Whether the sampled edge {@code u -> v} of relation {@code r} is left out of its block. */
  interface Drop {
    boolean drop(int r, int u, int v);
  }

  static TypedMiniBatch sample(
      TypedGraph g, int seedType, int[][] fanouts, long seed, int epoch, int batch, int[] seeds) {
    int[][] byType = new int[g.schema().numTypes()][0];
    byType[seedType] = seeds;
    return sample(g, seedType, byType, fanouts, seed, epoch, batch, (r, u, v) -> false);
  }

  /** As above with seeds of several types ({@code seeds[t]}) and edges left out by {@code drop}. */
  static TypedMiniBatch sample(
      TypedGraph g,
      int seedType,
      int[][] seedsByType,
      int[][] fanouts,
      long seed,
      int epoch,
      int batch,
      Drop drop) {
    int[] seeds = seedsByType[seedType];
    TypedSchema s = g.schema();
    int types = s.numTypes();
    int layers = fanouts[0].length;
    List<List<Integer>> nodes = new ArrayList<>();
    List<Map<Integer, Integer>> index = new ArrayList<>();
    for (int t = 0; t < types; t++) {
      nodes.add(new ArrayList<>());
      index.add(new HashMap<>());
    }
    int[][] sizes = new int[types][layers + 1];
    for (int t = 0; t < types; t++) {
      for (int v : seedsByType[t]) {
        index.get(t).put(v, nodes.get(t).size());
        nodes.get(t).add(v);
      }
      sizes[t][0] = seedsByType[t].length;
    }
    long batchKey = SampleHash.batchKey(SampleHash.epochKey(seed, epoch), batch);
    int[][][] indptr = new int[layers][s.numRelations()][];
    int[][][] indices = new int[layers][s.numRelations()][];
    NodeSampler ns = new NodeSampler();
    for (int h = 1; h <= layers; h++) {
      for (int r = 0; r < s.numRelations(); r++) {
        TypedSchema.Relation rel = s.relation(r);
        CsrGraph csr = g.inNeighbors(r);
        int rows = sizes[rel.dstType()][h - 1];
        int f = fanouts[r][h - 1];
        int[] ptr = new int[rows + 1];
        List<Integer> ix = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
          int v = nodes.get(rel.dstType()).get(i);
          int degree = (int) csr.degree(v);
          int k = f == 0 ? 0 : f < 0 ? degree : Math.min(f, degree);
          int[] pos = new int[Math.max(k, 1)];
          if (k > 0) {
            long key = SampleHash.nodeKey(SampleHash.relationKey(batchKey, r), h, v);
            ns.choose(key, degree, k, pos, 0);
          }
          for (int j = 0; j < k; j++) {
            int u = csr.neighbor(csr.rowStart(v) + pos[j]);
            if (drop.drop(r, u, v)) {
              continue;
            }
            Map<Integer, Integer> m = index.get(rel.srcType());
            Integer l = m.get(u);
            if (l == null) {
              l = nodes.get(rel.srcType()).size();
              m.put(u, l);
              nodes.get(rel.srcType()).add(u);
            }
            ix.add(l);
          }
          ptr[i + 1] = ix.size();
        }
        indptr[h - 1][r] = ptr;
        indices[h - 1][r] = ix.stream().mapToInt(Integer::intValue).toArray();
      }
      for (int t = 0; t < types; t++) {
        sizes[t][h] = nodes.get(t).size();
      }
    }
    int[][] out = new int[types][];
    for (int t = 0; t < types; t++) {
      out[t] = nodes.get(t).stream().mapToInt(Integer::intValue).toArray();
    }
    int[] labels = new int[seeds.length];
    for (int i = 0; i < seeds.length; i++) {
      labels[i] = g.vertices(seedType).label(seeds[i]);
    }
    int[] labelPtr = null;
    int[] labelIds = null;
    if (s.type(seedType).multiLabel()) {
      labelPtr = new int[seeds.length + 1];
      List<Integer> ids = new ArrayList<>();
      for (int i = 0; i < seeds.length; i++) {
        for (int c : g.labelSet(seedType, seeds[i])) {
          ids.add(c);
        }
        labelPtr[i + 1] = ids.size();
      }
      labelIds = ids.stream().mapToInt(Integer::intValue).toArray();
    }
    return new TypedMiniBatch(
        epoch,
        batch,
        seedType,
        new TypedBlocks(out, sizes, indptr, indices),
        new SeedLabels(labels, labelPtr, labelIds));
  }
}
