package io.fanout.sample;

import java.util.Arrays;

/**
 * Assembles one {@link MiniBatch} hop by hop, deduplicating nodes so that each hop's nodes are a
 * prefix of the next: new nodes get local indices in the order their first sampled edge appears
 * (destination order, then each destination's sample order). Both execution modes of {@code sample}
 * build batches through this class, which is what makes their shards identical.
 *
 * <p>Reused across batches by one thread; not thread-safe.
 */
public final class BatchBuilder {
  private final DedupMap local = new DedupMap(4096);
  private int[] nodes = new int[1024];
  private int size;
  private int[] layerSizes;
  private int[][] indptr;
  private int[][] indices;
  private int hop;

  /**
   * Starts a batch of {@code layers} hops whose seeds are {@code seeds[from .. from+count)}.
   *
   * @throws IllegalArgumentException when a seed repeats
   */
  public void start(int layers, int[] seeds, int from, int count) {
    local.clear();
    size = 0;
    hop = 0;
    layerSizes = new int[layers + 1];
    indptr = new int[layers][];
    indices = new int[layers][];
    ensure(count);
    for (int i = 0; i < count; i++) {
      int v = seeds[from + i];
      if (local.putIfAbsent(v, size) >= 0) {
        throw new IllegalArgumentException("seed " + v + " appears twice in one batch");
      }
      nodes[size++] = v;
    }
    layerSizes[0] = size;
  }

  /**
   * Continues {@code p}: its nodes keep their local indices, the next hop is {@code p.hops + 1}.
   */
  public void resume(PartialBatch p) {
    local.clear();
    size = 0;
    layerSizes = p.layerSizes.clone();
    indptr = p.indptr.clone();
    indices = p.indices.clone();
    hop = p.hops;
    int count = p.layerSizes[p.hops];
    if (p.nodes.length != count) {
      throw new IllegalArgumentException(
          "partial batch has " + p.nodes.length + " nodes, not " + count);
    }
    ensure(count);
    for (int i = 0; i < count; i++) {
      int v = p.nodes[i];
      if (local.putIfAbsent(v, size) >= 0) {
        throw new IllegalArgumentException("node " + v + " appears twice in one batch");
      }
      nodes[size++] = v;
    }
  }

  /** The batch so far, for shipping to the next stage. */
  public PartialBatch snapshot(int epoch, int batch, int[] labels) {
    return snapshot(epoch, batch, labels, null);
  }

  /** The batch so far, scoring {@code pairs} (null: a node batch). */
  public PartialBatch snapshot(int epoch, int batch, int[] labels, LinkPairs pairs) {
    return new PartialBatch(
        epoch,
        batch,
        indptr.length,
        hop,
        Arrays.copyOf(nodes, size),
        layerSizes.clone(),
        indptr.clone(),
        indices.clone(),
        labels,
        pairs);
  }

  /** The batch's seeds: the first nodes. */
  public int numSeeds() {
    return layerSizes[0];
  }

  /** Nodes so far: the destinations of the next hop. */
  public int size() {
    return size;
  }

  /** The global id of local node {@code i}. */
  public int node(int i) {
    return nodes[i];
  }

  /** Hops added so far. */
  public int hops() {
    return hop;
  }

  /**
   * Adds the next hop. Row {@code i} of {@code ptr} lists the sampled in-neighbors (global ids) of
   * local node {@code i}, in {@code ids[ptr[i] .. ptr[i+1])}. {@code ids} is rewritten in place to
   * local indices and kept as the block's indices.
   *
   * @param ptr length {@link #size()} + 1, starting at 0
   */
  public void addHop(int[] ptr, int[] ids) {
    if (hop >= indptr.length) {
      throw new IllegalStateException("batch already has its " + indptr.length + " hops");
    }
    if (ptr.length != size + 1 || ptr[0] != 0 || ptr[size] != ids.length) {
      throw new IllegalArgumentException(
          "hop " + (hop + 1) + " row pointers do not cover " + size + " destinations");
    }
    for (int e = 0; e < ids.length; e++) {
      int v = ids[e];
      if (Checks.ON && v < 0) {
        throw new IllegalArgumentException("negative node id " + v);
      }
      int l = local.putIfAbsent(v, size);
      if (l < 0) {
        if (size == nodes.length) {
          ensure(1);
        }
        l = size;
        nodes[size++] = v;
      }
      ids[e] = l;
    }
    indptr[hop] = ptr;
    indices[hop] = ids;
    layerSizes[++hop] = size;
  }

  /** Finishes the batch after its last hop; {@code labels} are the seeds' labels. */
  public MiniBatch finish(int epoch, int batch, int[] labels) {
    return finish(epoch, batch, labels, null);
  }

  /** Finishes a link-prediction batch scoring {@code pairs} (null: a node batch). */
  public MiniBatch finish(int epoch, int batch, int[] labels, LinkPairs pairs) {
    if (hop != indptr.length) {
      throw new IllegalStateException("batch has " + hop + " of " + indptr.length + " hops");
    }
    return new MiniBatch(
        epoch, batch, Arrays.copyOf(nodes, size), layerSizes, indptr, indices, labels, pairs);
  }

  private void ensure(int more) {
    if (size + more > nodes.length) {
      long cap = Math.max((long) nodes.length * 2, (long) size + more);
      nodes = Arrays.copyOf(nodes, (int) Math.min(cap, Integer.MAX_VALUE - 8));
    }
  }
}
