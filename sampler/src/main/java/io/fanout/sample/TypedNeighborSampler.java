package io.fanout.sample;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeWeights;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedSchema;
import io.fanout.graph.VertexTable;

/**
 * Node-wise neighbor sampling without replacement over a {@link TypedGraph}, producing {@link
 * TypedMiniBatch}es whose seeds are vertices of one type.
 *
 * <p>Hop {@code h} (1-based) takes, for every relation {@code r = src -> dst} in relation order,
 * every {@code dst} node reached before the hop as a destination and samples {@code
 * min(fanouts[r][h-1], degree over r)} distinct in-neighbors of each ({@code -1} = all, {@code 0} =
 * none), with the draws of {@link NodeSampler} keyed by {@link SampleHash#nodeKey}{@code
 * (relationKey(batchKey, r), h, node)}. New nodes are appended to their type's list in the order
 * their first sampled edge appears (relation order, destination order, then sample order), which
 * keeps each type's earlier nodes a prefix ({@link TypedBatchBuilder}, which the partitioned mode
 * of {@code sample} builds its batches through as well). Each block is built count, prefix-sum,
 * fill (every row's positions, then one loop reading the neighbors of all rows).
 *
 * <p>Weighted ({@code sample --weighted}), a relation with {@link TypedGraph#weights} samples
 * {@code min(fanout, positive-weight in-neighbors)} of each row with probabilities proportional to
 * the weights, by {@link WeightedNodeSampler#sampleNeighbors} under the same key; relations without
 * weights draw uniformly as above.
 *
 * <p>Link-prediction batches ({@link TypedLinkSampler}) seed both endpoint types of the link
 * relation and leave the batch's positive edges out of the blocks of that relation and its reverses
 * (after the draws, so such a row may hold one sample fewer than its fanout), both done by {@link
 * TypedLinkSeeds} and {@link TypedBatchBuilder}, as in the partitioned mode.
 *
 * <p>The sampler is immutable and thread-safe; each thread samples through its own {@link Worker}.
 * A batch depends only on (seed, epoch, batch index, seeds, graph, weights, fanouts).
 */
public final class TypedNeighborSampler {
  private final TypedGraph graph;
  private final int seedType;
  private final int[][] fanouts;
  private final long seed;
  private final CsrGraph[] csr;
  private final EdgeWeights[] weights;
  private final int[] dstType;
  private final boolean multiLabel;

  /**
   * @param seedType the type the seeds are vertices of
   * @param fanouts {@code fanouts[r][h-1]} per relation ({@link TypedFanouts#parse})
   */
  public TypedNeighborSampler(TypedGraph graph, int seedType, int[][] fanouts, long seed) {
    this(graph, seedType, fanouts, seed, false);
  }

  /**
   * A sampler that, when {@code weighted}, draws the in-neighbors of every relation with {@link
   * TypedGraph#weights} in proportion to the weights (the others uniformly).
   *
   * @param seedType the type the seeds are vertices of
   * @param fanouts {@code fanouts[r][h-1]} per relation ({@link TypedFanouts#parse})
   */
  public TypedNeighborSampler(
      TypedGraph graph, int seedType, int[][] fanouts, long seed, boolean weighted) {
    TypedSchema schema = graph.schema();
    if (seedType < 0 || seedType >= schema.numTypes()) {
      throw new IllegalArgumentException("seed type " + seedType + " is not a type of the graph");
    }
    if (fanouts.length != schema.numRelations() || fanouts.length == 0) {
      throw new IllegalArgumentException(
          fanouts.length + " relations of fanouts for " + schema.numRelations() + " relations");
    }
    int layers = fanouts[0].length;
    for (int r = 0; r < fanouts.length; r++) {
      if (fanouts[r].length != layers) {
        throw new IllegalArgumentException("relations disagree on the number of hops");
      }
      for (int f : fanouts[r]) {
        if (f < -1) {
          throw new IllegalArgumentException("fanout " + f + "; expected >= 0 or -1");
        }
      }
    }
    this.graph = graph;
    this.seedType = seedType;
    this.fanouts = new int[fanouts.length][];
    this.csr = new CsrGraph[fanouts.length];
    this.weights = new EdgeWeights[fanouts.length];
    this.dstType = new int[fanouts.length];
    for (int r = 0; r < fanouts.length; r++) {
      this.fanouts[r] = fanouts[r].clone();
      TypedSchema.Relation rel = schema.relation(r);
      csr[r] = graph.inNeighbors(r);
      weights[r] = weighted ? graph.weights(r) : null;
      dstType[r] = rel.dstType();
      if (csr[r].numVertices() != schema.type(rel.dstType()).count()) {
        throw new IllegalArgumentException(
            "relation '"
                + rel.name()
                + "' has "
                + csr[r].numVertices()
                + " rows but its destination type "
                + schema.type(rel.dstType()).count()
                + " vertices");
      }
    }
    this.multiLabel = schema.type(seedType).multiLabel();
    this.seed = seed;
  }

  public int layers() {
    return fanouts[0].length;
  }

  public int seedType() {
    return seedType;
  }

  public long seed() {
    return seed;
  }

  /** The seed order of one epoch: the seed type's vertices of {@code splitCode}, shuffled. */
  public int[] order(int splitCode, int epoch) {
    return SeedOrder.order(graph.vertices(seedType), splitCode, seed, epoch);
  }

  public Worker newWorker() {
    return new Worker(null);
  }

  /** A worker of link-prediction batches of {@code link} ({@link #sampleLink}). */
  Worker newWorker(TypedLinkRelation link) {
    return new Worker(link);
  }

  /** Per-thread scratch: reused across batches, so a batch allocates only its own arrays. */
  public final class Worker {
    private final TypedBatchBuilder builder;
    private final NodeSampler nodeSampler = new NodeSampler();
    private final WeightedNodeSampler weightedSampler = new WeightedNodeSampler();
    private long[] starts = new long[1024];
    private int[] degrees = new int[1024];
    private int[] positions = new int[64];
    private long[] gather = new long[1024];

    private Worker(TypedLinkRelation link) {
      builder = new TypedBatchBuilder(graph.schema(), seedType, link);
    }

    /** Samples the batch whose seeds are {@code seeds[from .. from+count)} (type-local ids). */
    public TypedMiniBatch sample(int epoch, int batch, int[] seeds, int from, int count) {
      int n = graph.vertices(seedType).numVertices();
      for (int i = 0; i < count; i++) {
        int v = seeds[from + i];
        if (v < 0 || v >= n) {
          throw new IllegalArgumentException(
              "seed " + v + " is not a vertex of type " + graph.schema().type(seedType).name());
        }
      }
      builder.start(epoch, batch, layers(), seeds, from, count);
      hops(epoch, batch);
      VertexTable vt = graph.vertices(seedType);
      int[] labels = new int[count];
      for (int i = 0; i < count; i++) {
        labels[i] = vt.label(seeds[from + i]);
      }
      int[] labelPtr = null;
      int[] labelIds = null;
      if (multiLabel) {
        labelPtr = new int[count + 1];
        int[][] sets = new int[count][];
        for (int i = 0; i < count; i++) {
          sets[i] = graph.labelSet(seedType, seeds[from + i]);
          labelPtr[i + 1] = labelPtr[i] + sets[i].length;
        }
        labelIds = new int[labelPtr[count]];
        for (int i = 0; i < count; i++) {
          System.arraycopy(sets[i], 0, labelIds, labelPtr[i], sets[i].length);
        }
      }
      return builder.finish(new SeedLabels(labels, labelPtr, labelIds));
    }

    /**
     * Samples the link-prediction batch whose positives are {@code src[i] -> dst[i]} ({@code i <
     * count}, type-local ids of the link relation's two types), started by {@code seeds} (on a
     * worker made for its link relation).
     */
    TypedMiniBatch sampleLink(
        int epoch, int batch, TypedLinkSeeds seeds, int[] src, int[] dst, int count) {
      seeds.start(builder, epoch, batch, layers(), src, dst, count);
      hops(epoch, batch);
      return builder.finish(builder.linkLabels());
    }

    /**
     * Samples the batch of held-out pairs {@code src[i] -> dst[i]} labelled {@code label[i]}
     * ({@code i < count}, type-local ids of the link relation's two types), started by {@code
     * seeds} (on a worker made for its link relation).
     */
    TypedMiniBatch sampleHeldOut(
        int epoch, int batch, TypedLinkSeeds seeds, int[] src, int[] dst, byte[] label, int count) {
      seeds.startHeldOut(builder, epoch, batch, layers(), src, dst, label, count);
      hops(epoch, batch);
      return builder.finish(builder.linkLabels());
    }

    /** Samples every hop from the builder's seeds. */
    private void hops(int epoch, int batch) {
      long batchKey = SampleHash.batchKey(SampleHash.epochKey(seed, epoch), batch);
      int layers = fanouts[0].length;
      int relations = fanouts.length;
      for (int h = 1; h <= layers; h++) {
        for (int r = 0; r < relations; r++) {
          int rows = builder.rows(r);
          int fanout = fanouts[r][h - 1];
          if (rows == 0 || fanout == 0) {
            builder.addEmptyBlock(r);
          } else if (weights[r] != null) {
            weightedBlock(SampleHash.relationKey(batchKey, r), h, r, rows, fanout);
          } else {
            sampleBlock(SampleHash.relationKey(batchKey, r), h, r, rows, fanout);
          }
        }
      }
    }

    /**
     * Block (h, r): count and prefix-sum, fill, then the builder's dedup into the source type (and,
     * of a link batch, its exclusion of the positives).
     */
    private void sampleBlock(long relKey, int h, int r, int rows, int fanout) {
      CsrGraph g = csr[r];
      int[] dstNodes = builder.nodes(dstType[r]);
      if (starts.length < rows) {
        starts = new long[Math.max(rows, 2 * starts.length)];
        degrees = new int[starts.length];
      }
      int[] ptr = new int[rows + 1];
      long total = 0;
      for (int i = 0; i < rows; i++) {
        int v = dstNodes[i];
        long s = g.rowStart(v);
        int degree = NodeSampler.rowDegree(g, v, s);
        starts[i] = s;
        degrees[i] = degree;
        total += NodeSampler.sampleSize(degree, fanout);
        if (total > Integer.MAX_VALUE - 8) {
          throw new IllegalStateException(
              "hop " + h + " samples more than 2^31 edges over one relation");
        }
        ptr[i + 1] = (int) total;
      }
      // Fill: every row's positions first (NodeSampler#fillRow's, row by row), then the neighbors
      // of all rows in one loop, whose independent reads (a cache miss each, in two or more
      // relations' rows per node) the CPU keeps in flight together.
      int n = (int) total;
      if (gather.length < n) {
        gather = new long[Math.max(n, 2 * gather.length)];
      }
      for (int i = 0; i < rows; i++) {
        int k = ptr[i + 1] - ptr[i];
        if (k == 0) {
          continue;
        }
        int o = ptr[i];
        long s = starts[i];
        if (k == degrees[i]) {
          for (int j = 0; j < k; j++) {
            gather[o + j] = s + j;
          }
          continue;
        }
        if (positions.length < k) {
          positions = new int[Math.max(k, 2 * positions.length)];
        }
        nodeSampler.choose(SampleHash.nodeKey(relKey, h, dstNodes[i]), degrees[i], k, positions, 0);
        for (int j = 0; j < k; j++) {
          gather[o + j] = s + positions[j];
        }
      }
      int[] ids = new int[n];
      for (int e = 0; e < n; e++) {
        ids[e] = g.neighbor(gather[e]);
      }
      builder.addBlock(r, ptr, ids);
    }

    /**
     * Block (h, r) of a weighted relation: each row's count is known only after its draw ({@link
     * WeightedNodeSampler#sampleRows}).
     */
    private void weightedBlock(long relKey, int h, int r, int rows, int fanout) {
      int[] ptr = new int[rows + 1];
      int[] ids =
          weightedSampler.sampleRows(
              csr[r], weights[r], relKey, h, builder.nodes(dstType[r]), rows, fanout, ptr);
      // counts to row pointers, in place: ptr[i] holds row i's count
      int prev = 0;
      for (int i = 0; i <= rows; i++) {
        int c = ptr[i];
        ptr[i] = prev;
        prev += c;
      }
      builder.addBlock(r, ptr, ids);
    }
  }

  @Override
  public String toString() {
    return "TypedNeighborSampler(seedType="
        + graph.schema().type(seedType).name()
        + ", fanouts="
        + TypedFanouts.format(fanouts, graph.schema())
        + ", seed="
        + seed
        + ")";
  }
}
