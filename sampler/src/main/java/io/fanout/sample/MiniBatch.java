package io.fanout.sample;

/**
 * One sampled mini-batch: {@code L} message-flow blocks over a deduplicated node list.
 *
 * <p>{@code nodes} holds dense global ids. The first {@code layerSizes[h]} nodes are the nodes
 * reached after hop {@code h} ({@code layerSizes[0]} = the seeds), so every hop's destinations are
 * a prefix of its sources. Block {@code h} (1-based, {@code h = 1..L}) is a CSR with {@code
 * layerSizes[h-1]} rows: row {@code i} lists local indices in {@code [0, layerSizes[h])} of the
 * sampled in-neighbors of node {@code i}. A model applies block {@code L} first and block 1 last.
 *
 * <p>Arrays are owned by the batch; callers must not mutate them.
 */
public final class MiniBatch {
  private final int epoch;
  private final int batch;
  private final int[] nodes;
  private final int[] layerSizes;
  private final int[][] indptr;
  private final int[][] indices;
  private final int[] labels;
  private final LinkPairs pairs;

  /**
   * @param indptr {@code indptr[h-1]} is block {@code h}'s row pointer array, length {@code
   *     layerSizes[h-1] + 1}
   * @param indices {@code indices[h-1]} is block {@code h}'s local source indices
   * @param labels the seeds' labels, length {@code layerSizes[0]}
   */
  public MiniBatch(
      int epoch,
      int batch,
      int[] nodes,
      int[] layerSizes,
      int[][] indptr,
      int[][] indices,
      int[] labels) {
    this(epoch, batch, nodes, layerSizes, indptr, indices, labels, null);
  }

  /**
   * A link-prediction batch: as above, with the {@code pairs} it scores (null for node
   * classification); the pairs' endpoints must be seeds.
   */
  public MiniBatch(
      int epoch,
      int batch,
      int[] nodes,
      int[] layerSizes,
      int[][] indptr,
      int[][] indices,
      int[] labels,
      LinkPairs pairs) {
    int layers = layerSizes.length - 1;
    if (layers < 0 || indptr.length != layers || indices.length != layers) {
      throw new IllegalArgumentException(
          "layerSizes, indptr and indices disagree on the layer count");
    }
    if (layerSizes[layers] != nodes.length || labels.length != layerSizes[0]) {
      throw new IllegalArgumentException("nodes or labels disagree with layerSizes");
    }
    this.epoch = epoch;
    this.batch = batch;
    this.nodes = nodes;
    this.layerSizes = layerSizes;
    this.indptr = indptr;
    this.indices = indices;
    this.labels = labels;
    this.pairs = pairs;
    if (pairs != null) {
      for (int i = 0; i < pairs.size(); i++) {
        if (pairs.src()[i] < 0
            || pairs.src()[i] >= layerSizes[0]
            || pairs.dst()[i] < 0
            || pairs.dst()[i] >= layerSizes[0]) {
          throw new IllegalArgumentException("pair " + i + " has an endpoint that is not a seed");
        }
      }
    }
  }

  /** The scored pairs of a link-prediction batch, or null. */
  public LinkPairs pairs() {
    return pairs;
  }

  public int epoch() {
    return epoch;
  }

  public int batch() {
    return batch;
  }

  /** Number of hops {@code L}. */
  public int layers() {
    return layerSizes.length - 1;
  }

  public int numSeeds() {
    return layerSizes[0];
  }

  /** Number of nodes after hop {@code h}; {@code h = 0} gives the seeds. */
  public int layerSize(int h) {
    return layerSizes[h];
  }

  public int[] layerSizes() {
    return layerSizes;
  }

  public int[] nodes() {
    return nodes;
  }

  /** Row pointers of block {@code h}, {@code 1 <= h <= layers()}. */
  public int[] indptr(int h) {
    return indptr[h - 1];
  }

  /** Local source indices of block {@code h}, {@code 1 <= h <= layers()}. */
  public int[] indices(int h) {
    return indices[h - 1];
  }

  public int[] labels() {
    return labels;
  }

  /** Sampled edges over all blocks. */
  public long numEdges() {
    long n = 0;
    for (int[] ix : indices) {
      n += ix.length;
    }
    return n;
  }
}
