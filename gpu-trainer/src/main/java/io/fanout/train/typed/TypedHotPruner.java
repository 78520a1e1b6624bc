package io.fanout.train.typed;

import io.fanout.nn.typed.ReusedBottom;
import io.fanout.sample.SeedLabels;
import io.fanout.sample.TypedBlocks;
import io.fanout.sample.TypedMiniBatch;
import java.util.Arrays;

/**
 * Prunes a typed batch's bottom hop for the hot rows whose layer-0 outputs are reused ({@link
 * TypedHotSet}), as the one-type {@code HotPruner} prunes a bottom block, per type.
 *
 * <p>The hot rows are the non-seed destinations of the bottom hop (level {@code L-1}) whose vertex
 * is hot in its type. They are dropped: per type, layer 0 computes only the other destinations,
 * which become the pruned hop's destinations, in order, and the first of the type's sources (the
 * prefix property holds). Then come the sources those rows still read, relation by relation, in the
 * order the computed rows first read them: deeper nodes, and hot rows that a computed row sampled
 * as a neighbor (their input rows are still read). Sources that only hot rows reached, and hot rows
 * no computed row reads, are gone, so their input rows are neither gathered nor uploaded. The
 * pruned hop depends on the computed rows and their edges only, not on what the hot rows sampled.
 *
 * <p>A batch that carries its feature rows ({@code sample --features}) gives the pruned hop the
 * rows of the nodes it keeps, so the step reads the shard's rows as without reuse.
 *
 * <p>A pure function of the batch and the hot set, so a loader thread (which gathers the pruned
 * hop's input rows) and the training step prune a batch alike. Stateless.
 */
final class TypedHotPruner {
  private TypedHotPruner() {}

  /**
   * {@code b}'s bottom hop pruned for {@code hot}, or null when it has none of the hot rows (or
   * fewer than two hops): then the batch is used as sampled.
   */
  static ReusedBottom prune(TypedMiniBatch b, TypedHotSet hot) {
    int layers = b.layers();
    if (layers < 2) {
      return null;
    }
    int types = b.numTypes();
    int rels = b.numRelations();
    int bottom = layers - 1;
    int[][] newIndex = new int[types][];
    int[][] rowOf = new int[types][]; // per type: computed row k -> its row in level L-1
    int[] computed = new int[types];
    int[] kept = new int[types];
    int hotRows = 0;
    int fullRows = 0;
    int[] fullOff = new int[types];
    for (int t = 0; t < types; t++) {
      fullOff[t] = fullRows;
      fullRows += b.layerSize(t, bottom);
      int[] slotOf = hot.slotOf(t);
      int[] nodes = b.nodes(t);
      newIndex[t] = new int[b.layerSize(t, layers)];
      Arrays.fill(newIndex[t], -1);
      rowOf[t] = new int[b.layerSize(t, bottom)];
      for (int i = 0; i < b.layerSize(t, bottom); i++) {
        if (i >= b.layerSize(t, 0) && slotOf[nodes[i]] >= 0) {
          hotRows++;
        } else {
          newIndex[t][i] = computed[t];
          rowOf[t][computed[t]++] = i;
        }
      }
      kept[t] = computed[t];
    }
    if (hotRows == 0) {
      return null;
    }
    int[][][] indptr = new int[1][rels][];
    int[][][] indices = new int[1][rels][];
    for (int r = 0; r < rels; r++) {
      int[] ptr = b.indptr(layers, r);
      int[] idx = b.indices(layers, r);
      int dst = hot.config().relation(r).dst();
      int src = hot.config().relation(r).src();
      int[] ni = newIndex[src];
      int n = computed[dst];
      int[] p = new int[n + 1];
      for (int k = 0; k < n; k++) {
        int i = rowOf[dst][k];
        p[k + 1] = p[k] + ptr[i + 1] - ptr[i];
      }
      int[] x = new int[p[n]];
      for (int k = 0; k < n; k++) {
        int i = rowOf[dst][k];
        for (int q = ptr[i], e = p[k]; q < ptr[i + 1]; q++, e++) {
          int j = idx[q];
          if (ni[j] < 0) {
            ni[j] = kept[src]++;
          }
          x[e] = ni[j];
        }
      }
      indptr[0][r] = p;
      indices[0][r] = x;
    }
    int[][] nodes = new int[types][];
    int[][] sizes = new int[types][];
    int[] fullRow = new int[fullRows - hotRows];
    int[] hotRow = new int[hotRows];
    int[] hotSlot = new int[hotRows];
    int c = 0;
    int h = 0;
    for (int t = 0; t < types; t++) {
      int[] all = b.nodes(t);
      nodes[t] = new int[kept[t]];
      for (int j = 0; j < newIndex[t].length; j++) {
        if (newIndex[t][j] >= 0) {
          nodes[t][newIndex[t][j]] = all[j];
        }
      }
      sizes[t] = new int[] {computed[t], kept[t]};
      for (int k = 0; k < computed[t]; k++) {
        fullRow[c++] = fullOff[t] + rowOf[t][k];
      }
      int[] slotOf = hot.slotOf(t);
      for (int i = b.layerSize(t, 0); i < b.layerSize(t, bottom); i++) {
        int s = slotOf[all[i]];
        if (s >= 0) {
          hotRow[h] = fullOff[t] + i;
          hotSlot[h++] = hot.offset(t) + s;
        }
      }
    }
    int[] labels = new int[computed[b.seedType()]];
    Arrays.fill(labels, -1);
    TypedMiniBatch block = oneHop(b.seedType(), nodes, sizes, indptr, indices, labels);
    if (b.inlineFeatures() != null) {
      block = block.withInlineFeatures(keptRows(b, newIndex, kept, hot.config()));
    }
    return new ReusedBottom(block, fullRow, hotRow, hotSlot);
  }

  /**
   * The inline feature rows ({@code sample --features}) of the pruned hop's nodes: per type, the
   * row {@code b} carries for each node kept, in the pruned order ({@code newIndex[t][j]}: the
   * pruned index of {@code b}'s node {@code j}, -1 when dropped); null where {@code b} carries
   * none.
   */
  private static float[][] keptRows(
      TypedMiniBatch b, int[][] newIndex, int[] kept, io.fanout.nn.typed.TypedModelConfig cfg) {
    float[][] inline = b.inlineFeatures();
    float[][] out = new float[inline.length][];
    for (int t = 0; t < inline.length; t++) {
      int n = b.nodes(t).length;
      if (inline[t] == null || n == 0) {
        out[t] = inline[t] == null ? null : new float[0];
        continue;
      }
      if (inline[t].length % n != 0) {
        throw new IllegalArgumentException(
            "type '"
                + cfg.type(t).name()
                + "' has "
                + inline[t].length
                + " inline feature floats for "
                + n
                + " nodes");
      }
      int dim = inline[t].length / n;
      out[t] = new float[Math.multiplyExact(kept[t], dim)];
      for (int j = 0; j < n; j++) {
        if (newIndex[t][j] >= 0) {
          System.arraycopy(inline[t], j * dim, out[t], newIndex[t][j] * dim, dim);
        }
      }
    }
    return out;
  }

  /**
   * A one-hop typed batch of the given blocks, without labels that matter ({@code labels} all -1):
   * the pruned bottom hop or the hot set's block. (The one place this class builds a {@link
   * TypedMiniBatch}.)
   */
  static TypedMiniBatch oneHop(
      int seedType,
      int[][] nodes,
      int[][] sizes,
      int[][][] indptr,
      int[][][] indices,
      int[] labels) {
    return new TypedMiniBatch(
        0, 0, seedType, new TypedBlocks(nodes, sizes, indptr, indices), SeedLabels.single(labels));
  }
}
