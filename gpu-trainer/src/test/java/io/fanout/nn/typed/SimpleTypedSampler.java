package io.fanout.nn.typed;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedSchema;
import io.fanout.sample.SeedLabels;
import io.fanout.sample.TypedBlocks;
import io.fanout.sample.TypedMiniBatch;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A plain typed neighbor sampler for tests: per hop and relation up to {@code fanout} in-neighbors
 * of each destination (all of them when fewer), drawn by a generator seeded from (seed, epoch, hop,
 * relation, node); node lists grow by appending, so every hop's nodes are a prefix of the next
 * hop's.
 */
public final class SimpleTypedSampler {
  private final TypedGraph g;
  private final int seedType;
  private final int[] fanouts;
  private final long seed;

  public SimpleTypedSampler(TypedGraph g, int seedType, int[] fanouts, long seed) {
    this.g = g;
    this.seedType = seedType;
    this.fanouts = fanouts;
    this.seed = seed;
  }

  public TypedMiniBatch sample(int epoch, int batchIndex, int[] seeds) {
    TypedSchema s = g.schema();
    int types = s.numTypes();
    int rels = s.numRelations();
    int layers = fanouts.length;
    List<List<Integer>> nodes = new ArrayList<>();
    List<Map<Integer, Integer>> index = new ArrayList<>();
    for (int t = 0; t < types; t++) {
      nodes.add(new ArrayList<>());
      index.add(new HashMap<>());
    }
    for (int v : seeds) {
      add(nodes, index, seedType, v);
    }
    int[][] sizes = new int[types][layers + 1];
    for (int t = 0; t < types; t++) {
      sizes[t][0] = nodes.get(t).size();
    }
    int[][][] indptr = new int[layers][rels][];
    int[][][] indices = new int[layers][rels][];
    for (int h = 1; h <= layers; h++) {
      for (int r = 0; r < rels; r++) {
        TypedSchema.Relation rel = s.relation(r);
        CsrGraph csr = g.inNeighbors(r);
        int rows = sizes[rel.dstType()][h - 1];
        int[] ptr = new int[rows + 1];
        List<Integer> idx = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
          int v = nodes.get(rel.dstType()).get(i);
          long start = csr.rowStart(v);
          int deg = (int) csr.degree(v);
          int[] pick = new int[deg];
          for (int k = 0; k < deg; k++) {
            pick[k] = csr.neighbor(start + k);
          }
          int take = Math.min(deg, fanouts[h - 1]);
          if (take < deg) {
            SplittableRandom rng =
                new SplittableRandom(seed * 1_000_003L + epoch * 7919L + h * 131L + r * 17L + v);
            for (int k = 0; k < take; k++) {
              int j = k + rng.nextInt(deg - k);
              int tmp = pick[k];
              pick[k] = pick[j];
              pick[j] = tmp;
            }
          }
          for (int k = 0; k < take; k++) {
            idx.add(add(nodes, index, rel.srcType(), pick[k]));
          }
          ptr[i + 1] = idx.size();
        }
        indptr[h - 1][r] = ptr;
        indices[h - 1][r] = idx.stream().mapToInt(Integer::intValue).toArray();
      }
      for (int t = 0; t < types; t++) {
        sizes[t][h] = nodes.get(t).size();
      }
    }
    int[][] nodeArrays = new int[types][];
    for (int t = 0; t < types; t++) {
      nodeArrays[t] = nodes.get(t).stream().mapToInt(Integer::intValue).toArray();
    }
    int[] labels = new int[seeds.length];
    int[] labelPtr = null;
    int[] labelIds = null;
    if (s.type(seedType).multiLabel()) {
      labelPtr = new int[seeds.length + 1];
      List<Integer> ids = new ArrayList<>();
      for (int i = 0; i < seeds.length; i++) {
        int[] set = g.labelSet(seedType, seeds[i]);
        for (int c : set) {
          ids.add(c);
        }
        labelPtr[i + 1] = ids.size();
        labels[i] = set.length == 0 ? -1 : set[0];
      }
      labelIds = ids.stream().mapToInt(Integer::intValue).toArray();
    } else {
      for (int i = 0; i < seeds.length; i++) {
        labels[i] = g.vertices(seedType).label(seeds[i]);
      }
    }
    return new TypedMiniBatch(
        epoch,
        batchIndex,
        seedType,
        new TypedBlocks(nodeArrays, sizes, indptr, indices),
        new SeedLabels(labels, labelPtr, labelIds));
  }

  private static int add(
      List<List<Integer>> nodes, List<Map<Integer, Integer>> index, int t, int v) {
    Integer at = index.get(t).get(v);
    if (at != null) {
      return at;
    }
    int i = nodes.get(t).size();
    nodes.get(t).add(v);
    index.get(t).put(v, i);
    return i;
  }

  /** Features of every type's batch nodes, gathered from the graph (null for featureless types). */
  public static float[][] features(TypedGraph g, TypedMiniBatch b) {
    float[][] x = new float[b.numTypes()][];
    for (int t = 0; t < b.numTypes(); t++) {
      if (g.features(t) != null) {
        int dim = g.schema().type(t).featureDim();
        int[] ids = b.nodes(t);
        x[t] = new float[ids.length * dim];
        g.features(t).gather(ids, 0, ids.length, x[t], 0);
      }
    }
    return x;
  }

  static int[] range(int n) {
    int[] a = new int[n];
    Arrays.setAll(a, i -> i);
    return a;
  }
}
