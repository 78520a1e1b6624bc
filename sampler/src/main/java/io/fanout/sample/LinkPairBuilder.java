package io.fanout.sample;

import java.util.Arrays;

/**
 * Builds a link-prediction batch's pairs from its positive edges: {@code k} negatives per positive
 * pairing the positive's source with a destination from the {@link NegativeSampler} (in-batch: the
 * destinations of the {@code k} following positives, cyclically; fewer when the batch is smaller),
 * drawn with words keyed by (seed, epoch, batch, pair). The batch's seed nodes are the pairs'
 * endpoints, deduplicated in pair order (positives, then negatives), and its positive edges are the
 * {@link #exclude() excluded} ones. Both sampling modes build their link batches here, which is
 * what makes their shards identical.
 *
 * <p>Reused across batches by one thread; not thread-safe.
 */
public final class LinkPairBuilder {
  private static final long NEGATIVES = 0x4E45474154495645L;

  private final NegativeSampler negatives;
  private final int perPositive;
  private final long seed;
  private final int dstOffset;
  private final DedupMap local = new DedupMap(4096);
  private final PairSet exclude = new PairSet();
  private int[] nodes = new int[1024];
  private int size;

  /**
   * @param seed the sampling seed (the one the blocks are sampled with)
   */
  public LinkPairBuilder(NegativeSampler negatives, int perPositive, long seed) {
    this(negatives, perPositive, seed, 0);
  }

  /**
   * A builder whose destinations live in an id space shifted by {@code dstOffset} (a typed link
   * relation between two vertex types: sources {@code [0, dstOffset)}, destination {@code v} as
   * {@code dstOffset + v}, so that one node list and one {@link PairSet} hold both types): {@link
   * #build}'s {@code dst} is given shifted, and the negatives' draws are shifted the same way.
   */
  public LinkPairBuilder(NegativeSampler negatives, int perPositive, long seed, int dstOffset) {
    if (perPositive < 1) {
      throw new IllegalArgumentException("negatives per positive " + perPositive + " < 1");
    }
    this.negatives = negatives;
    this.perPositive = perPositive;
    this.seed = seed;
    this.dstOffset = dstOffset;
  }

  private int local(int v) {
    int l = local.putIfAbsent(v, size);
    if (l >= 0) {
      return l;
    }
    if (size == nodes.length) {
      nodes = Arrays.copyOf(nodes, 2 * size);
    }
    nodes[size] = v;
    return size++;
  }

  /**
   * The pairs of batch {@code batch} of {@code epoch} whose positives are {@code src[i] -> dst[i]}
   * (global ids), {@code i < count}; the pairs' endpoints are local indices into {@link #nodes()}.
   */
  public LinkPairs build(int epoch, int batch, int[] src, int[] dst, int count) {
    local.clear();
    exclude.clear();
    size = 0;
    int k = negatives.inBatch() ? Math.min(perPositive, count - 1) : perPositive;
    int pairs = count * (1 + k);
    int[] ps = new int[pairs];
    int[] pd = new int[pairs];
    int[] label = new int[pairs];
    for (int i = 0; i < count; i++) {
      ps[i] = local(src[i]);
      pd[i] = local(dst[i]);
      label[i] = 1;
      exclude.add(src[i], dst[i]);
    }
    long key =
        SampleHash.mix(SampleHash.batchKey(SampleHash.epochKey(seed, epoch), batch) ^ NEGATIVES);
    int p = count;
    for (int i = 0; i < count; i++) {
      for (int j = 0; j < k; j++) {
        int c =
            negatives.inBatch()
                ? dst[(i + 1 + j) % count]
                : dstOffset + negatives.draw(SampleHash.draw(key, (long) i * k + j));
        ps[p] = local(src[i]);
        pd[p] = local(c);
        p++;
      }
    }
    return new LinkPairs(ps, pd, label);
  }

  /**
   * The pairs of a batch of held-out pairs {@code src[i] -> dst[i]} with labels {@code label[i]}
   * (global ids; 1: a positive, 0: a stored negative), {@code i < count}, in the given order, none
   * drawn: the seed nodes are their endpoints deduplicated in pair order, and the positives are the
   * {@link #exclude() excluded} edges.
   */
  public LinkPairs fixed(int[] src, int[] dst, byte[] label, int count) {
    local.clear();
    exclude.clear();
    size = 0;
    int[] ps = new int[count];
    int[] pd = new int[count];
    int[] l = new int[count];
    for (int i = 0; i < count; i++) {
      ps[i] = local(src[i]);
      pd[i] = local(dst[i]);
      l[i] = label[i];
      if (label[i] == 1) {
        exclude.add(src[i], dst[i]);
      }
    }
    return new LinkPairs(ps, pd, l);
  }

  /** The last batch's seed nodes (global ids, first {@link #size()} entries; scratch, reused). */
  public int[] nodes() {
    return nodes;
  }

  /** Number of seed nodes of the last batch. */
  public int size() {
    return size;
  }

  /** The last batch's positive edges, which its blocks must not contain (scratch, reused). */
  public PairSet exclude() {
    return exclude;
  }
}
