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
  private final int[][] nodes;
  private final int[][] layerSizes;
  private final int[][][] indptr;
  private final int[][][] indices;
  private final int[] labels;
  private final int[] labelPtr;
  private final int[] labelIds;
  private final LinkPairs pairs;

  /**
   * A node-classification batch: {@link #TypedMiniBatch(int, int, int, int[][], int[][], int[][][],
   * int[][][], int[], int[], int[], LinkPairs)} without pairs.
   */
  public TypedMiniBatch(
      int epoch,
      int batch,
      int seedType,
      int[][] nodes,
      int[][] layerSizes,
      int[][][] indptr,
      int[][][] indices,
      int[] labels,
      int[] labelPtr,
      int[] labelIds) {
    this(
        epoch,
        batch,
        seedType,
        nodes,
        layerSizes,
        indptr,
        indices,
        labels,
        labelPtr,
        labelIds,
        null);
  }

  /**
   * @param seedType the type of the seeds (the target type of node classification)
   * @param nodes {@code nodes[t]}, type-local ids, length {@code layerSizes[t][L]}
   * @param layerSizes {@code layerSizes[t][h]} for {@code h = 0..L}
   * @param indptr {@code indptr[h-1][r]}, length {@code layerSizes[dst(r)][h-1] + 1}
   * @param indices {@code indices[h-1][r]}
   * @param labels the seeds' class (single-label), -1 where unlabelled; length the seed count
   * @param labelPtr the seeds' label sets (multi-label) as a CSR over {@code labelIds}, or null
   * @param labelIds the classes of the label sets, or null
   * @param pairs a link-prediction batch's scored pairs of its link relation {@code R = S -> D}
   *     ({@code sample --task link}), or null: {@code pairs.src()} index type {@code S}'s seeds
   *     ({@code nodes[S][0 .. layerSizes[S][0])}), {@code pairs.dst()} type {@code D}'s; the seed
   *     type is then {@code D}, whose {@code labels} are all -1
   */
  public TypedMiniBatch(
      int epoch,
      int batch,
      int seedType,
      int[][] nodes,
      int[][] layerSizes,
      int[][][] indptr,
      int[][][] indices,
      int[] labels,
      int[] labelPtr,
      int[] labelIds,
      LinkPairs pairs) {
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
    if (labels.length != layerSizes[seedType][0]) {
      throw new IllegalArgumentException("labels disagree with the seed count");
    }
    if ((labelPtr == null) != (labelIds == null)
        || (labelPtr != null && labelPtr.length != labels.length + 1)) {
      throw new IllegalArgumentException("labelPtr and labelIds disagree with the seeds");
    }
    for (int h = 0; h < layers; h++) {
      if (indptr[h].length != indices[h].length) {
        throw new IllegalArgumentException("indptr and indices disagree on the relations");
      }
    }
    this.epoch = epoch;
    this.batch = batch;
    this.seedType = seedType;
    this.nodes = nodes;
    this.layerSizes = layerSizes;
    this.indptr = indptr;
    this.indices = indices;
    this.labels = labels;
    this.labelPtr = labelPtr;
    this.labelIds = labelIds;
    this.pairs = pairs;
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
    return nodes.length;
  }

  public int numRelations() {
    return indptr.length == 0 ? 0 : indptr[0].length;
  }

  /** Number of hops {@code L}. */
  public int layers() {
    return indptr.length;
  }

  public int numSeeds() {
    return layerSizes[seedType][0];
  }

  /** Nodes of type {@code t} after hop {@code h}; {@code h = 0} gives that type's seeds. */
  public int layerSize(int t, int h) {
    return layerSizes[t][h];
  }

  public int[][] layerSizes() {
    return layerSizes;
  }

  /** Type-local ids of type {@code t}'s nodes, all hops. */
  public int[] nodes(int t) {
    return nodes[t];
  }

  /** Row pointers of block {@code (h, r)}, {@code 1 <= h <= layers()}. */
  public int[] indptr(int h, int r) {
    return indptr[h - 1][r];
  }

  /** Source indices (into {@code nodes(src(r))}) of block {@code (h, r)}. */
  public int[] indices(int h, int r) {
    return indices[h - 1][r];
  }

  public int[] labels() {
    return labels;
  }

  /** Whether the seeds carry label sets (multi-label). */
  public boolean multiLabel() {
    return labelPtr != null;
  }

  public int[] labelPtr() {
    return labelPtr;
  }

  public int[] labelIds() {
    return labelIds;
  }

  /** The scored pairs of a link-prediction batch, or null for node classification. */
  public LinkPairs pairs() {
    return pairs;
  }

  /** Sampled edges over all hops and relations. */
  public long numEdges() {
    long n = 0;
    for (int[][] hop : indices) {
      for (int[] ix : hop) {
        n += ix.length;
      }
    }
    return n;
  }
}
