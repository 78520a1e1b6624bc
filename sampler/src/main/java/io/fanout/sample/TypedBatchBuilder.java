package io.fanout.sample;

import io.fanout.graph.TypedSchema;
import java.util.Arrays;

/**
 * Assembles one {@link TypedMiniBatch} hop by hop and, within a hop, relation by relation in
 * relation order, deduplicating each type's nodes so that its nodes after hop {@code h-1} are a
 * prefix of its nodes after hop {@code h}: a new node gets the next index of its type in the order
 * its first sampled edge appears (relation order, destination order, then sample order). Both
 * execution modes of {@code sample} build typed batches through this class ({@link
 * TypedNeighborSampler} in one JVM, the partitioned mode from its owners' answers), which is what
 * makes their shards identical; the typed analogue of {@link BatchBuilder}. A link-prediction batch
 * ({@link #startLink}, on a builder made for a {@link TypedLinkRelation}) leaves its positive edges
 * out of every block of the link relation and its reverses as the block is added ({@link
 * TypedLinkExclusion}), after the draws, so such a row may hold one sample fewer than its fanout.
 *
 * <p>Reused across batches by one thread; not thread-safe.
 */
public final class TypedBatchBuilder {
  private static final int[] NO_EDGES = new int[0];

  /** Sampled edges whose dedup-map slots {@link #addBlock} touches ahead of their lookups. */
  private static final int TOUCH_WINDOW = 64;

  private final int seedType;
  private final int numTypes;
  private final int relations;
  private final int[] srcType;
  private final int[] dstType;
  private final TypedLinkRelation link;
  private final DedupMap[] local;
  private final int[][] nodes;
  private final int[] size;
  private int epoch;
  private int batch;
  private int hop;
  private int nextRelation;
  private int[][] layerSizes;
  private int[][][] indptr;
  private int[][][] indices;
  private TypedLinkExclusion exclude; // the link batch's positives, else null
  private LinkPairs pairs; // the link batch's pairs (positions in the seed lists), else null
  private int touched; // keeps DedupMap#touch's reads

  public TypedBatchBuilder(TypedSchema schema, int seedType) {
    this(schema, seedType, null);
  }

  /**
   * A builder of {@code schema}'s batches; of link-prediction batches of {@code link}, if given.
   */
  public TypedBatchBuilder(TypedSchema schema, int seedType, TypedLinkRelation link) {
    this(schema.numTypes(), endpoints(schema, true), endpoints(schema, false), seedType, link);
  }

  /**
   * A builder for {@code numTypes} types and relations {@code srcType[r] -> dstType[r]}, where
   * there is no {@link TypedSchema} at hand.
   */
  public TypedBatchBuilder(int numTypes, int[] srcType, int[] dstType, int seedType) {
    this(numTypes, srcType, dstType, seedType, null);
  }

  /**
   * {@link #TypedBatchBuilder(int, int[], int[], int)} of link-prediction batches of {@code link}
   * (whose destination type is the seed type), or of node batches only when null.
   */
  public TypedBatchBuilder(
      int numTypes, int[] srcType, int[] dstType, int seedType, TypedLinkRelation link) {
    if (srcType.length != dstType.length || seedType < 0 || seedType >= numTypes) {
      throw new IllegalArgumentException("relations or seed type disagree with the types");
    }
    if (link != null && (link.dstType() != seedType || link.reverse().length != srcType.length)) {
      throw new IllegalArgumentException("link relation disagrees with the seed type or schema");
    }
    this.link = link;
    this.seedType = seedType;
    this.numTypes = numTypes;
    this.relations = srcType.length;
    this.srcType = srcType.clone();
    this.dstType = dstType.clone();
    local = new DedupMap[numTypes];
    nodes = new int[numTypes][];
    size = new int[numTypes];
    for (int t = 0; t < numTypes; t++) {
      local[t] = new DedupMap(t == seedType ? 4096 : 1024);
      nodes[t] = new int[t == seedType ? 1024 : 256];
    }
  }

  private static int[] endpoints(TypedSchema schema, boolean source) {
    int[] out = new int[schema.numRelations()];
    for (int r = 0; r < out.length; r++) {
      TypedSchema.Relation rel = schema.relation(r);
      out[r] = source ? rel.srcType() : rel.dstType();
    }
    return out;
  }

  /**
   * Starts batch {@code (epoch, batch)} of {@code layers} hops whose seeds are {@code seeds[from ..
   * from+count)}, type-local ids of the seed type.
   *
   * @throws IllegalArgumentException when a seed repeats
   */
  public void start(int epoch, int batch, int layers, int[] seeds, int from, int count) {
    begin(epoch, batch, layers, 0);
    layerSizes = new int[numTypes][layers + 1];
    ensure(seedType, count);
    for (int i = 0; i < count; i++) {
      add(seedType, seeds[from + i], "seed ");
    }
    layerSizes[seedType][0] = count;
  }

  /**
   * Starts batch {@code (epoch, batch)} whose seeds are of several types (a link-prediction batch's
   * pair endpoints): seed {@code i} is {@code ids[i]} of type {@code types[i]}. Returns each seed's
   * index in its type's nodes.
   *
   * @throws IllegalArgumentException when a seed repeats
   */
  public int[] start(int epoch, int batch, int layers, int[] types, int[] ids, int count) {
    begin(epoch, batch, layers, 0);
    layerSizes = new int[numTypes][layers + 1];
    int[] position = new int[count];
    for (int i = 0; i < count; i++) {
      int t = types[i];
      ensure(t, 1);
      position[i] = size[t];
      add(t, ids[i], "seed ");
    }
    for (int t = 0; t < numTypes; t++) {
      layerSizes[t][0] = size[t];
    }
    return position;
  }

  /**
   * Starts link-prediction batch {@code (epoch, batch)} ({@link TypedLinkSeeds}): its seeds are
   * {@code pairNodes[0 .. count)}, the pairs' endpoints in the shifted id space of {@link
   * TypedLinkRelation}, split by type in that order; {@code localPairs} (indices into {@code
   * pairNodes}) become positions in the two types' seed lists, and the edges of {@code positives}
   * leave the blocks of the link relation and of its reverses.
   */
  void startLink(
      int epoch,
      int batch,
      int layers,
      int[] pairNodes,
      int count,
      LinkPairs localPairs,
      PairSet positives) {
    if (link == null) {
      throw new IllegalStateException("builder made for node batches");
    }
    int[] types = new int[count];
    int[] ids = new int[count];
    for (int i = 0; i < count; i++) {
      int v = pairNodes[i];
      types[i] = link.typeOf(v);
      ids[i] = types[i] == link.srcType() ? v : v - link.dstOffset();
    }
    int[] position = start(epoch, batch, layers, types, ids, count);
    int n = localPairs.size();
    int[] ps = new int[n];
    int[] pd = new int[n];
    for (int i = 0; i < n; i++) {
      ps[i] = position[localPairs.src()[i]];
      pd[i] = position[localPairs.dst()[i]];
    }
    pairs = new LinkPairs(ps, pd, localPairs.label().clone());
    exclude = new TypedLinkExclusion(positives, link);
  }

  /** A link-prediction batch's labels: -1 for each seed of the seed type. */
  public SeedLabels linkLabels() {
    int[] labels = new int[seedCount(seedType)];
    Arrays.fill(labels, -1);
    return SeedLabels.single(labels);
  }

  /** Continues {@code p}: its nodes keep their indices, the next hop is {@code p.hops + 1}. */
  public void resume(TypedPartialBatch p) {
    TypedBlocks blocks = p.blocks;
    if (p.seedType != seedType || blocks.nodes().length != numTypes) {
      throw new IllegalArgumentException("partial batch of another seed type or schema");
    }
    begin(p.epoch, p.batch, p.layers, p.hops);
    layerSizes = new int[numTypes][];
    for (int t = 0; t < numTypes; t++) {
      layerSizes[t] = blocks.layerSizes()[t].clone();
      int count = blocks.layerSizes()[t][p.hops];
      int[] given = blocks.nodes()[t];
      if (given.length != count) {
        throw new IllegalArgumentException(
            "partial batch has " + given.length + " nodes of type " + t + ", not " + count);
      }
      ensure(t, count);
      for (int i = 0; i < count; i++) {
        add(t, given[i], "node ");
      }
    }
    for (int h = 0; h < p.hops; h++) {
      indptr[h] = blocks.indptr()[h].clone();
      indices[h] = blocks.indices()[h].clone();
    }
    if (p.pairs != null) {
      if (link == null) {
        throw new IllegalArgumentException("link batch resumed by a builder of node batches");
      }
      pairs = p.pairs;
      exclude = TypedLinkExclusion.of(link, pairs, nodes[link.srcType()], nodes[link.dstType()]);
    }
  }

  private void begin(int epoch, int batch, int layers, int hops) {
    this.epoch = epoch;
    this.batch = batch;
    this.hop = hops;
    this.nextRelation = 0;
    this.exclude = null;
    this.pairs = null;
    for (int t = 0; t < numTypes; t++) {
      local[t].clear();
      size[t] = 0;
    }
    indptr = new int[layers][relations][];
    indices = new int[layers][relations][];
  }

  private void add(int t, int v, String what) {
    if (local[t].putIfAbsent(v, size[t]) >= 0) {
      throw new IllegalArgumentException(what + v + " appears twice in one batch");
    }
    nodes[t][size[t]++] = v;
  }

  /** Hops completed so far. */
  public int hops() {
    return hop;
  }

  /** The relation whose block comes next in the hop being built. */
  public int nextRelation() {
    return nextRelation;
  }

  /**
   * The destinations of relation {@code r} in the hop being built: the first {@code rows(r)} nodes
   * of its destination type ({@link #nodes}).
   */
  public int rows(int r) {
    return layerSizes[dstType[r]][hop];
  }

  /**
   * Type {@code t}'s nodes so far: the first {@link #size} entries of the builder's own array,
   * which it may replace as it grows; read, do not keep or write.
   */
  public int[] nodes(int t) {
    return nodes[t];
  }

  public int size(int t) {
    return size[t];
  }

  /**
   * Adds block {@code (hops() + 1, r)}, {@code r == nextRelation()}. Row {@code i} of {@code ptr}
   * lists the sampled in-neighbors (type-local ids of the source type) of destination {@code i}
   * ({@code nodes(dst)[i]}, {@code i < rows(r)}) in {@code ids[ptr[i] .. ptr[i+1])}. {@code ids} is
   * rewritten in place to indices into the source type's nodes and kept as the block's indices (of
   * a link batch, first without its positive edges, {@code ptr} rewritten in place). After the last
   * relation the hop is complete.
   */
  public void addBlock(int r, int[] ptr, int[] ids) {
    if (hop >= indptr.length) {
      throw new IllegalStateException("batch already has its " + indptr.length + " hops");
    }
    if (r != nextRelation) {
      throw new IllegalStateException(
          "hop " + (hop + 1) + " expects relation " + nextRelation + ", not " + r);
    }
    int rows = rows(r);
    if (ptr.length != rows + 1 || ptr[0] != 0 || ptr[rows] != ids.length) {
      throw new IllegalArgumentException(
          "hop " + (hop + 1) + " relation " + r + ": row pointers do not cover " + rows + " rows");
    }
    if (exclude != null && ids.length > 0) {
      ids = exclude.dropFrom(r, ptr, ids, nodes[dstType[r]]);
    }
    int t = srcType[r];
    DedupMap map = local[t];
    int n = size[t];
    int[] list = nodes[t];
    // In windows: first touch the window's map slots (a cache miss each, in flight together), then
    // the lookups in edge order, which decide the nodes' order.
    for (int w = 0; w < ids.length; w += TOUCH_WINDOW) {
      int end = Math.min(ids.length, w + TOUCH_WINDOW);
      touched += map.touch(ids, w, end);
      for (int e = w; e < end; e++) {
        int v = ids[e];
        if (Checks.ON && v < 0) {
          throw new IllegalArgumentException("negative node id " + v);
        }
        int l = map.putIfAbsent(v, n);
        if (l < 0) {
          if (n == list.length) {
            size[t] = n;
            ensure(t, 1);
            list = nodes[t];
          }
          l = n;
          list[n++] = v;
        }
        ids[e] = l;
      }
    }
    size[t] = n;
    indptr[hop][r] = ptr;
    indices[hop][r] = ids;
    if (++nextRelation == relations) {
      nextRelation = 0;
      hop++;
      for (int u = 0; u < numTypes; u++) {
        layerSizes[u][hop] = size[u];
      }
    }
  }

  /** Adds block {@code (hops() + 1, r)} with no edges: a relation not sampled at this hop. */
  public void addEmptyBlock(int r) {
    addBlock(r, new int[rows(r) + 1], NO_EDGES);
  }

  /** The batch so far, for shipping to the next stage; labels may still be null. */
  public TypedPartialBatch snapshot(SeedLabels labels) {
    requireWholeHop();
    int[][] sizes = new int[numTypes][];
    int[][] out = new int[numTypes][];
    for (int t = 0; t < numTypes; t++) {
      sizes[t] = layerSizes[t].clone();
      out[t] = Arrays.copyOf(nodes[t], size[t]);
    }
    int[][][] ptr = new int[indptr.length][][];
    int[][][] ix = new int[indptr.length][][];
    for (int h = 0; h < indptr.length; h++) {
      ptr[h] = indptr[h].clone();
      ix[h] = indices[h].clone();
    }
    return new TypedPartialBatch(
        epoch,
        batch,
        seedType,
        indptr.length,
        hop,
        new TypedBlocks(out, sizes, ptr, ix),
        labels,
        pairs);
  }

  /**
   * Finishes the batch after its last hop with the seeds' labels (of a link batch, {@link
   * #linkLabels()}), with a link batch's pairs.
   */
  public TypedMiniBatch finish(SeedLabels labels) {
    requireWholeHop();
    if (hop != indptr.length) {
      throw new IllegalStateException("batch has " + hop + " of " + indptr.length + " hops");
    }
    int[][] out = new int[numTypes][];
    for (int t = 0; t < numTypes; t++) {
      out[t] = Arrays.copyOf(nodes[t], size[t]);
    }
    return new TypedMiniBatch(
        epoch, batch, seedType, new TypedBlocks(out, layerSizes, indptr, indices), labels, pairs);
  }

  /** The batch's seeds of type {@code t} (its nodes before the first hop). */
  public int seedCount(int t) {
    return layerSizes[t][0];
  }

  private void requireWholeHop() {
    if (nextRelation != 0) {
      throw new IllegalStateException(
          "hop " + (hop + 1) + " has " + nextRelation + " of " + relations + " relations");
    }
  }

  private void ensure(int t, int more) {
    if (size[t] + more > nodes[t].length) {
      long cap = Math.max((long) nodes[t].length * 2, (long) size[t] + more);
      nodes[t] = Arrays.copyOf(nodes[t], (int) Math.min(cap, Integer.MAX_VALUE - 8));
    }
  }
}
