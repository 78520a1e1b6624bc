package io.fanout.sample;

/**
 * One sampled mini-batch of a typed graph: per vertex type a deduplicated node list, and per hop
 * and relation a message-flow block between them.
 *
 * <p>{@code nodes[t]} holds type-local ids of type {@code t}. Its first {@code layerSizes[t][h]}
 * entries are the type-{@code t} nodes reached after hop {@code h} ({@code layerSizes[t][0]} are
 * the seeds of that type: non-zero only for the seed type, and for a link-prediction batch also for
 * its link relation's source type), so every hop's destinations of a type are a prefix of that
 * type's sources at the next hop.
 *
 * <p>Block {@code (h, r)} ({@code h = 1..L}, relation {@code r = src -> dst}) is a CSR with {@code
 * layerSizes[dst][h-1]} rows: row {@code i} lists indices in {@code [0, layerSizes[src][h])} into
 * {@code nodes[src]}, the sampled in-neighbors of node {@code nodes[dst][i]} over {@code r}, in the
 * order the sampler drew them. A relation that is not sampled at a hop has rows with no edges. A
 * model applies hop {@code L} first and hop 1 last.
 *
 * <p>Arrays are owned by the batch; callers must not mutate them.
 */
public final class TypedMiniBatch {
  private final int epoch;
  private final int batch;
  private final int seedType;
  private final TypedBlocks blocks;
  private final SeedLabels labels;
  private final LinkPairs pairs;
  private final float[][] inlineFeatures;

  /**
   * A node-classification batch: {@link #TypedMiniBatch(int, int, int, TypedBlocks, SeedLabels,
   * LinkPairs)} without pairs.
   */
  public TypedMiniBatch(int epoch, int batch, int seedType, TypedBlocks blocks, SeedLabels labels) {
    this(epoch, batch, seedType, blocks, labels, null);
  }

  /**
   * @param seedType the type of the seeds (the target type of node classification)
   * @param blocks {@code nodes[t]} of length {@code layerSizes[t][L]}, {@code layerSizes[t][h]} for
   *     {@code h = 0..L}, {@code indptr[h-1][r]} of length {@code layerSizes[dst(r)][h-1] + 1} and
   *     {@code indices[h-1][r]}
   * @param labels the seeds' labels, one per seed
   * @param pairs a link-prediction batch's scored pairs of its link relation {@code R = S -> D}
   *     ({@code sample --task link}), or null: {@code pairs.src()} index type {@code S}'s seeds
   *     ({@code nodes[S][0 .. layerSizes[S][0])}), {@code pairs.dst()} type {@code D}'s; the seed
   *     type is then {@code D}, whose {@code labels} are all -1
   */
  public TypedMiniBatch(
      int epoch, int batch, int seedType, TypedBlocks blocks, SeedLabels labels, LinkPairs pairs) {
    int[][] nodes = blocks.nodes();
    int[][] layerSizes = blocks.layerSizes();
    int[][][] indptr = blocks.indptr();
    int[][][] indices = blocks.indices();
    int types = nodes.length;
    if (layerSizes.length != types || types == 0 || seedType < 0 || seedType >= types) {
      throw new IllegalArgumentException("nodes, layerSizes and seedType disagree on the types");
    }
    int layers = layerSizes[0].length - 1;
    if (layers < 0 || indptr.length != layers || indices.length != layers) {
      throw new IllegalArgumentException("layerSizes, indptr and indices disagree on the layers");
    }
    for (int t = 0; t < types; t++) {
      if (layerSizes[t].length != layers + 1 || layerSizes[t][layers] != nodes[t].length) {
        throw new IllegalArgumentException("nodes of type " + t + " disagree with layerSizes");
      }
    }
    if (labels.labels().length != layerSizes[seedType][0]) {
      throw new IllegalArgumentException("labels disagree with the seed count");
    }
    for (int h = 0; h < layers; h++) {
      if (indptr[h].length != indices[h].length) {
        throw new IllegalArgumentException("indptr and indices disagree on the relations");
      }
    }
    this.epoch = epoch;
    this.batch = batch;
    this.seedType = seedType;
    this.blocks = blocks;
    this.labels = labels;
    this.pairs = pairs;
    this.inlineFeatures = null;
  }

  private TypedMiniBatch(TypedMiniBatch b, float[][] inlineFeatures) {
    this.epoch = b.epoch;
    this.batch = b.batch;
    this.seedType = b.seedType;
    this.blocks = b.blocks;
    this.labels = b.labels;
    this.pairs = b.pairs;
    this.inlineFeatures = inlineFeatures;
  }

  /**
   * This batch with the feature rows its shard row inlined ({@code sample --features}): {@code
   * rows[t]} the rows of {@link #nodes}(t) row-major, null for a type whose rows are not inlined.
   */
  public TypedMiniBatch withInlineFeatures(float[][] rows) {
    if (rows.length != numTypes()) {
      throw new IllegalArgumentException("inline feature rows disagree on the types");
    }
    return new TypedMiniBatch(this, rows);
  }

  /**
   * The feature rows read with the batch from its shard ({@link #withInlineFeatures}), or null when
   * the batch carries none (the trainer then gathers them from the store).
   */
  public float[][] inlineFeatures() {
    return inlineFeatures;
  }

  public int epoch() {
    return epoch;
  }

  public int batch() {
    return batch;
  }

  public int seedType() {
    return seedType;
  }

  public int numTypes() {
    return blocks.nodes().length;
  }

  public int numRelations() {
    int[][][] indptr = blocks.indptr();
    return indptr.length == 0 ? 0 : indptr[0].length;
  }

  /** Number of hops {@code L}. */
  public int layers() {
    return blocks.indptr().length;
  }

  public int numSeeds() {
    return blocks.layerSizes()[seedType][0];
  }

  /** Nodes of type {@code t} after hop {@code h}; {@code h = 0} gives that type's seeds. */
  public int layerSize(int t, int h) {
    return blocks.layerSizes()[t][h];
  }

  public int[][] layerSizes() {
    return blocks.layerSizes();
  }

  /** Type-local ids of type {@code t}'s nodes, all hops. */
  public int[] nodes(int t) {
    return blocks.nodes()[t];
  }

  /** Row pointers of block {@code (h, r)}, {@code 1 <= h <= layers()}. */
  public int[] indptr(int h, int r) {
    return blocks.indptr()[h - 1][r];
  }

  /** Source indices (into {@code nodes(src(r))}) of block {@code (h, r)}. */
  public int[] indices(int h, int r) {
    return blocks.indices()[h - 1][r];
  }

  /** The sampled subgraph: the nodes per type and the blocks per hop and relation. */
  public TypedBlocks blocks() {
    return blocks;
  }

  /** The seeds' labels (and label sets, where multi-label). */
  public SeedLabels seedLabels() {
    return labels;
  }

  public int[] labels() {
    return labels.labels();
  }

  /** Whether the seeds carry label sets (multi-label). */
  public boolean multiLabel() {
    return labels.multiLabel();
  }

  public int[] labelPtr() {
    return labels.labelPtr();
  }

  public int[] labelIds() {
    return labels.labelIds();
  }

  /** The scored pairs of a link-prediction batch, or null for node classification. */
  public LinkPairs pairs() {
    return pairs;
  }

  /** Sampled edges over all hops and relations. */
  public long numEdges() {
    long n = 0;
    for (int[][] hop : blocks.indices()) {
      for (int[] ix : hop) {
        n += ix.length;
      }
    }
    return n;
  }
}
