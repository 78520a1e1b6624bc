package io.fanout.train.typed;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.TypedGraph;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.train.HotBy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * The hot vertices of a typed run, per type, and the fixed one-hop block their layer-0 outputs are
 * computed on ({@code train --reuse-hot} on a typed store; the one-type {@link
 * io.fanout.train.HotSet}'s rule per type).
 *
 * <p>Candidates of type {@code t} are the vertices of {@code t} that epoch 0's batches place among
 * the bottom hop's destinations (level {@code L-1}) without being seeds. They are ranked by how
 * often that happens ({@link HotBy#FREQUENCY}) or by in-degree over every relation into {@code t}
 * ({@link HotBy#IN_DEGREE}), ties by smaller id, and the top {@code round(fraction x count(t))} are
 * hot: hotness is per type. Their slots are their ranks, type by type ({@link #offset}). {@link
 * #block()} is a one-hop batch whose destinations of each type are its hot vertices in slot order,
 * each with the neighbors over every relation into its type that it was sampled with at its first
 * occurrence in epoch 0 (in batch order), and {@link #features()} the input rows of its nodes: the
 * rows epoch 0's batches carried where the shards inline them ({@code sample --features}, as the
 * one-type hot set takes them from its batches), else gathered once from the graph (through no
 * feature cache: a store's mapped rows, which a cache would give alike), but for the types whose
 * rows the backend reads in place when only the trainer's backend computes the block ({@code
 * --feature-access zero-copy|device}: null there, none gathered). A pure function of epoch 0's
 * batches and the graph.
 */
final class TypedHotSet {
  private final TypedModelConfig cfg;
  private final int[][] slotOf;
  private final int[] offset;
  private final TypedMiniBatch block;
  private final float[][] features;
  private final int epochBatches;

  private TypedHotSet(
      TypedModelConfig cfg,
      int[][] slotOf,
      int[] offset,
      TypedMiniBatch block,
      float[][] features,
      int epochBatches) {
    this.cfg = cfg;
    this.slotOf = slotOf;
    this.offset = offset;
    this.block = block;
    this.features = features;
    this.epochBatches = epochBatches;
  }

  /** The model's types and relations. */
  TypedModelConfig config() {
    return cfg;
  }

  /** Batches of epoch 0, from which the set was selected. */
  int epochBatches() {
    return epochBatches;
  }

  /** Hot vertices of every type: the rows of the cache. */
  int size() {
    return offset[offset.length - 1];
  }

  /** Hot vertices of type {@code t}. */
  int size(int t) {
    return offset[t + 1] - offset[t];
  }

  /** Type {@code t}'s slot of each of its vertices (type-local id), -1 when it is not hot. */
  int[] slotOf(int t) {
    return slotOf[t];
  }

  /** The cache row of type {@code t}'s slot 0; {@code offset(numTypes)} is {@link #size()}. */
  int offset(int t) {
    return offset[t];
  }

  /** The hot vertices' one-hop block (destinations: the hot vertices, type by type). */
  TypedMiniBatch block() {
    return block;
  }

  /**
   * The input rows of {@link #block()}'s nodes, per type (null for embedded types and for types
   * read in place).
   */
  float[][] features() {
    return features;
  }

  /** The feature rows of {@link #block()}'s nodes held on the host ({@link #features()}). */
  long hostRows() {
    long rows = 0;
    for (int t = 0; features != null && t < features.length; t++) {
      rows += features[t] == null ? 0 : block.nodes(t).length;
    }
    return rows;
  }

  /**
   * Selects the hot set from epoch 0 of {@code epochs} (read twice) for a model of {@code cfg} on
   * {@code graph}, with every featured type's rows of the block.
   */
  static TypedHotSet build(
      TypedEpochs epochs, TypedGraph graph, TypedModelConfig cfg, double fraction, HotBy hotBy) {
    return build(epochs, graph, cfg, fraction, hotBy, t -> false);
  }

  /**
   * As {@link #build(TypedEpochs, TypedGraph, TypedModelConfig, double, HotBy)}, without the rows
   * of the types {@code inPlace} names: the backend reads those itself.
   */
  static TypedHotSet build(
      TypedEpochs epochs,
      TypedGraph graph,
      TypedModelConfig cfg,
      double fraction,
      HotBy hotBy,
      IntPredicate inPlace) {
    int types = cfg.numTypes();
    int[][] freq = new int[types][];
    for (int t = 0; t < types; t++) {
      freq[t] = new int[Math.toIntExact(cfg.type(t).count())];
    }
    int batches = 0;
    for (Iterator<TypedMiniBatch> it = epochs.epoch(0); it.hasNext(); batches++) {
      TypedMiniBatch b = it.next();
      int bottom = b.layers() - 1;
      if (bottom < 1) {
        continue;
      }
      for (int t = 0; t < types; t++) {
        int[] nodes = b.nodes(t);
        for (int i = b.layerSize(t, 0); i < b.layerSize(t, bottom); i++) {
          freq[t][nodes[i]]++;
        }
      }
    }
    int[][] slotOf = new int[types][];
    int[][] hot = new int[types][];
    int[] offset = new int[types + 1];
    for (int t = 0; t < types; t++) {
      hot[t] = rank(freq[t], hotBy == HotBy.IN_DEGREE ? inDegrees(graph, cfg, t) : null, fraction);
      slotOf[t] = new int[freq[t].length];
      Arrays.fill(slotOf[t], -1);
      for (int s = 0; s < hot[t].length; s++) {
        slotOf[t][hot[t][s]] = s;
      }
      offset[t + 1] = offset[t] + hot[t].length;
    }
    TypedMiniBatch block = neighborhoods(epochs, cfg, hot, slotOf);
    return new TypedHotSet(
        cfg, slotOf, offset, block, TypedFeatures.gather(graph, cfg, block, inPlace), batches);
  }

  /**
   * A hot set of the given vertices per type ({@code hot[t]}, in slot order) without a block: what
   * {@link TypedHotPruner} reads, for pruning alone.
   */
  static TypedHotSet ofVertices(TypedModelConfig cfg, int[][] hot) {
    int types = cfg.numTypes();
    int[][] slotOf = new int[types][];
    int[] offset = new int[types + 1];
    for (int t = 0; t < types; t++) {
      slotOf[t] = new int[Math.toIntExact(cfg.type(t).count())];
      Arrays.fill(slotOf[t], -1);
      for (int s = 0; s < hot[t].length; s++) {
        slotOf[t][hot[t][s]] = s;
      }
      offset[t + 1] = offset[t] + hot[t].length;
    }
    return new TypedHotSet(cfg, slotOf, offset, null, null, 0);
  }

  /**
   * The top {@code round(fraction x vertices)} of the candidates ({@code freq > 0}) by {@code
   * degree} (when given) or {@code freq}, ties by smaller id.
   */
  static int[] rank(int[] freq, long[] degree, double fraction) {
    int n = 0;
    for (int f : freq) {
      n += f > 0 ? 1 : 0;
    }
    long[] keys = new long[n];
    for (int v = 0, k = 0; v < freq.length; v++) {
      if (freq[v] > 0) {
        long score = Math.min(Integer.MAX_VALUE, degree != null ? degree[v] : freq[v]);
        keys[k++] = ((Integer.MAX_VALUE - score) << 32) | v;
      }
    }
    Arrays.sort(keys);
    int want = (int) Math.min(n, Math.round(fraction * freq.length));
    int[] hot = new int[want];
    for (int s = 0; s < want; s++) {
      hot[s] = (int) keys[s];
    }
    return hot;
  }

  /** In-degrees of type {@code t}'s vertices over every relation into {@code t}. */
  private static long[] inDegrees(TypedGraph graph, TypedModelConfig cfg, int t) {
    long[] d = new long[Math.toIntExact(cfg.type(t).count())];
    for (int r = 0; r < cfg.numRelations(); r++) {
      if (cfg.relation(r).dst() != t) {
        continue;
      }
      CsrGraph g = graph.inNeighbors(r);
      for (int v = 0; v < d.length; v++) {
        d[v] += g.degree(v);
      }
    }
    return d;
  }

  /**
   * The hot vertices' one-hop block: each one's neighbors at its first occurrence in epoch 0 as a
   * bottom-hop destination, over every relation into its type; sources per type the hot vertices
   * first, then the neighbors in the order the block's rows first read them.
   */
  private static TypedMiniBatch neighborhoods(
      TypedEpochs epochs, TypedModelConfig cfg, int[][] hot, int[][] slotOf) {
    int types = cfg.numTypes();
    int rels = cfg.numRelations();
    int[][][] nbrs = new int[rels][][]; // [r][slot]: the neighbors' type-local ids, null: unseen
    float[][][] nbrRows = new float[rels][][]; // [r][slot]: their inline rows, one after another
    float[][][] selfRows = new float[types][][]; // [t][slot]: the hot vertex's inline row
    for (int r = 0; r < rels; r++) {
      nbrs[r] = new int[hot[cfg.relation(r).dst()].length][];
      nbrRows[r] = new float[nbrs[r].length][];
    }
    boolean[][] seen = new boolean[types][];
    int[] left = new int[types];
    int missing = 0;
    for (int t = 0; t < types; t++) {
      seen[t] = new boolean[hot[t].length];
      selfRows[t] = new float[hot[t].length][];
      left[t] = hot[t].length;
      missing += left[t];
    }
    for (Iterator<TypedMiniBatch> it = epochs.epoch(0); it.hasNext() && missing > 0; ) {
      TypedMiniBatch b = it.next();
      int bottom = b.layers() - 1;
      if (bottom < 1) {
        continue;
      }
      for (int t = 0; t < types; t++) {
        int[] nodes = b.nodes(t);
        for (int i = b.layerSize(t, 0); i < b.layerSize(t, bottom) && left[t] > 0; i++) {
          int s = slotOf[t][nodes[i]];
          if (s < 0 || seen[t][s]) {
            continue;
          }
          seen[t][s] = true;
          left[t]--;
          missing--;
          selfRows[t][s] = inlineRows(b, t, new int[] {i});
          for (int r = 0; r < rels; r++) {
            if (cfg.relation(r).dst() != t) {
              continue;
            }
            int[] src = b.nodes(cfg.relation(r).src());
            int[] ptr = b.indptr(b.layers(), r);
            int[] idx = b.indices(b.layers(), r);
            int[] n = new int[ptr[i + 1] - ptr[i]];
            for (int p = ptr[i]; p < ptr[i + 1]; p++) {
              n[p - ptr[i]] = src[idx[p]];
            }
            nbrs[r][s] = n;
            nbrRows[r][s] =
                inlineRows(b, cfg.relation(r).src(), Arrays.copyOfRange(idx, ptr[i], ptr[i + 1]));
          }
        }
      }
    }
    return block(cfg, hot, nbrs, selfRows, nbrRows);
  }

  /**
   * The inline feature rows ({@code sample --features}) that {@code b} carries for its nodes of
   * type {@code t} at {@code at}, one after another; null when it carries none of type {@code t}.
   */
  private static float[] inlineRows(TypedMiniBatch b, int t, int[] at) {
    float[][] inline = b.inlineFeatures();
    if (inline == null || inline[t] == null) {
      return null;
    }
    if (at.length == 0) {
      return new float[0];
    }
    int dim = inline[t].length / b.nodes(t).length;
    float[] rows = new float[Math.multiplyExact(at.length, dim)];
    for (int k = 0; k < at.length; k++) {
      System.arraycopy(inline[t], at[k] * dim, rows, k * dim, dim);
    }
    return rows;
  }

  /**
   * The hot block of {@link #neighborhoods}; where epoch 0's batches carried feature rows ({@code
   * selfRows}, {@code nbrRows} not null), the block carries the rows of its nodes as they did.
   */
  private static TypedMiniBatch block(
      TypedModelConfig cfg,
      int[][] hot,
      int[][][] nbrs,
      float[][][] selfRows,
      float[][][] nbrRows) {
    int types = cfg.numTypes();
    int rels = cfg.numRelations();
    int[][] index = new int[types][]; // type-local id -> source index, -1: not a source yet
    int[] kept = new int[types];
    List<List<float[]>> srcRows = new ArrayList<>(); // per type, each source's inline row, or nulls
    for (int t = 0; t < types; t++) {
      srcRows.add(new ArrayList<>(Arrays.asList(selfRows[t])));
      index[t] = new int[Math.toIntExact(cfg.type(t).count())];
      Arrays.fill(index[t], -1);
      for (int s = 0; s < hot[t].length; s++) {
        index[t][hot[t][s]] = s;
      }
      kept[t] = hot[t].length;
    }
    int[][][] indptr = new int[1][rels][];
    int[][][] indices = new int[1][rels][];
    for (int r = 0; r < rels; r++) {
      int src = cfg.relation(r).src();
      int rows = nbrs[r].length;
      int[] ptr = new int[rows + 1];
      for (int s = 0; s < rows; s++) {
        ptr[s + 1] = ptr[s] + (nbrs[r][s] == null ? 0 : nbrs[r][s].length);
      }
      int[] idx = new int[ptr[rows]];
      for (int s = 0; s < rows; s++) {
        int[] n = nbrs[r][s] == null ? new int[0] : nbrs[r][s];
        float[] x = nbrRows[r][s];
        int dim = n.length == 0 || x == null ? 0 : x.length / n.length;
        for (int q = 0; q < n.length; q++) {
          int v = n[q];
          if (index[src][v] < 0) {
            index[src][v] = kept[src]++;
            srcRows.get(src).add(x == null ? null : Arrays.copyOfRange(x, q * dim, (q + 1) * dim));
          }
          idx[ptr[s] + q] = index[src][v];
        }
      }
      indptr[0][r] = ptr;
      indices[0][r] = idx;
    }
    int[][] nodes = new int[types][];
    int[][] sizes = new int[types][];
    for (int t = 0; t < types; t++) {
      nodes[t] = new int[kept[t]];
      for (int v = 0; v < index[t].length; v++) {
        if (index[t][v] >= 0) {
          nodes[t][index[t][v]] = v;
        }
      }
      sizes[t] = new int[] {hot[t].length, kept[t]};
    }
    int[] labels = new int[hot[cfg.target()].length];
    Arrays.fill(labels, -1);
    TypedMiniBatch b = TypedHotPruner.oneHop(cfg.target(), nodes, sizes, indptr, indices, labels);
    float[][] inline = new float[types][];
    boolean any = false;
    for (int t = 0; t < types; t++) {
      inline[t] = concat(srcRows.get(t));
      any |= inline[t] != null;
    }
    return any ? b.withInlineFeatures(inline) : b;
  }

  /** The rows one after another; null when there are none or any is missing. */
  private static float[] concat(List<float[]> rows) {
    int n = 0;
    for (float[] r : rows) {
      if (r == null) {
        return null;
      }
      n = Math.addExact(n, r.length);
    }
    if (rows.isEmpty()) {
      return null;
    }
    float[] out = new float[n];
    int at = 0;
    for (float[] r : rows) {
      System.arraycopy(r, 0, out, at, r.length);
      at += r.length;
    }
    return out;
  }
}
