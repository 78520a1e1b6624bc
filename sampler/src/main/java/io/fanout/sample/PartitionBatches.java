package io.fanout.sample;

import io.fanout.graph.VertexTable;
import java.util.Arrays;

/**
 * The per-epoch seed order of {@code sample --batch-by-partition}: batches whose seeds come from
 * one store partition, so that on a store partitioned for locality most of a batch's frontier lies
 * in that partition too.
 *
 * <p>For epoch {@code e} with key {@code K = SampleHash.epochKey(seed, e)}:
 *
 * <ol>
 *   <li>the partitions are ranked by {@link #partitionKey}(K, p) (ties by p);
 *   <li>each partition's seeds, in {@link SeedOrder#sortKey} order, are concatenated in rank order
 *       and cut into chunks of {@code batchSize} (the last chunk may be shorter);
 *   <li>batch {@code b} holds chunk {@link #chunkOrder}(K, chunks)[b]: the chunks but the last
 *       sorted by {@link #chunkKey}(K, chunk), the short last chunk last, so that only the last
 *       batch is partial, as in every other order.
 * </ol>
 *
 * A chunk mixes partitions only where it straddles the end of one: at most {@code P - 1} batches of
 * an epoch do (more when a partition has fewer seeds than a batch). Every step is a function of
 * (seed, epoch, partition, vertex) alone, so a distributed sort gives the same order.
 */
public final class PartitionBatches {
  private PartitionBatches() {}

  /** The rank key of partition {@code p} in the epoch of {@code epochKey}. */
  public static long partitionKey(long epochKey, int p) {
    return SampleHash.mix(epochKey ^ SampleHash.mix(0xB10C_0000_0000L + p));
  }

  /** The sort key of chunk {@code chunk} in the epoch of {@code epochKey}. */
  public static long chunkKey(long epochKey, int chunk) {
    return SampleHash.mix(epochKey ^ SampleHash.mix(0xC4A7_0000_0000L + chunk));
  }

  /** {@code rank[p]}: where partition {@code p} comes in the epoch's concatenation. */
  public static int[] partitionRanks(long epochKey, int partitions) {
    return ranks(epochKey, partitions, false);
  }

  /** {@code batch[c]}: the batch that holds chunk {@code c}, the inverse of {@link #chunkOrder}. */
  public static int[] batchOfChunk(long epochKey, int chunks) {
    int[] order = chunkOrder(epochKey, chunks);
    int[] batch = new int[order.length];
    for (int b = 0; b < order.length; b++) {
      batch[order[b]] = b;
    }
    return batch;
  }

  /**
   * {@code order[b]}: the chunk batch {@code b} holds; the last chunk stays last.
   *
   * @param chunks the epoch's number of batches
   */
  public static int[] chunkOrder(long epochKey, int chunks) {
    int[] order = new int[chunks];
    if (chunks == 0) {
      return order;
    }
    int[] rank = ranks(epochKey, chunks - 1, true);
    for (int c = 0; c < chunks - 1; c++) {
      order[rank[c]] = c;
    }
    order[chunks - 1] = chunks - 1;
    return order;
  }

  /** Ranks of 0..n-1 by (key, index), with partition or chunk keys. */
  private static int[] ranks(long epochKey, int n, boolean chunks) {
    long[][] keyed = new long[n][];
    for (int i = 0; i < n; i++) {
      long k = chunks ? chunkKey(epochKey, i) : partitionKey(epochKey, i);
      keyed[i] = new long[] {k, i};
    }
    Arrays.sort(
        keyed,
        (a, b) -> {
          int c = Long.compare(a[0], b[0]);
          return c != 0 ? c : Long.compare(a[1], b[1]);
        });
    int[] rank = new int[n];
    for (int r = 0; r < n; r++) {
      rank[(int) keyed[r][1]] = r;
    }
    return rank;
  }

  /**
   * The seeds of {@code splitCode} for one epoch, batch by batch.
   *
   * @param firsts {@code firsts[p]} the first dense id of partition p, {@code firsts[P]} the vertex
   *     count
   */
  public static int[] order(
      VertexTable vertices, long[] firsts, int splitCode, long seed, int epoch, int batchSize) {
    int parts = firsts.length - 1;
    long epochKey = SampleHash.epochKey(seed, epoch);
    int[] rank = partitionRanks(epochKey, parts);
    int[] byRank = new int[parts];
    for (int p = 0; p < parts; p++) {
      byRank[rank[p]] = p;
    }
    int total = 0;
    int[][] seeds = new int[parts][];
    for (int p = 0; p < parts; p++) {
      int from = (int) firsts[p];
      int to = (int) firsts[p + 1];
      int n = 0;
      for (int v = from; v < to; v++) {
        if (SeedOrder.inSplit(splitCode, vertices.split(v))) {
          n++;
        }
      }
      int[] s = new int[n];
      n = 0;
      for (int v = from; v < to; v++) {
        if (SeedOrder.inSplit(splitCode, vertices.split(v))) {
          s[n++] = v;
        }
      }
      seeds[p] = SeedOrder.order(s, seed, epoch);
      total += n;
    }
    int[] concat = new int[total];
    int o = 0;
    for (int r = 0; r < parts; r++) {
      int[] s = seeds[byRank[r]];
      System.arraycopy(s, 0, concat, o, s.length);
      o += s.length;
    }
    int chunks = SeedOrder.batches(total, batchSize);
    int[] chunkOf = chunkOrder(epochKey, chunks);
    int[] out = new int[total];
    o = 0;
    for (int b = 0; b < chunks; b++) {
      int from = chunkOf[b] * batchSize;
      int n = Math.min(batchSize, total - from);
      System.arraycopy(concat, from, out, o, n);
      o += n;
    }
    return out;
  }

  /**
   * {@code home[b]}: the partition of batch {@code b}'s first seed, from the partitions' seed
   * counts.
   */
  public static int[] homes(long[] seedsPerPartition, long seed, int epoch, int batchSize) {
    int parts = seedsPerPartition.length;
    long epochKey = SampleHash.epochKey(seed, epoch);
    int[] rank = partitionRanks(epochKey, parts);
    int[] byRank = new int[parts];
    long total = 0;
    for (int p = 0; p < parts; p++) {
      byRank[rank[p]] = p;
      total += seedsPerPartition[p];
    }
    long[] ends = new long[parts]; // end position of rank r in the concatenation
    long o = 0;
    for (int r = 0; r < parts; r++) {
      o += seedsPerPartition[byRank[r]];
      ends[r] = o;
    }
    int chunks = SeedOrder.batches(total, batchSize);
    int[] chunkOf = chunkOrder(epochKey, chunks);
    int[] home = new int[chunks];
    for (int b = 0; b < chunks; b++) {
      long start = (long) chunkOf[b] * batchSize;
      int r = 0;
      while (ends[r] <= start) {
        r++;
      }
      home[b] = byRank[r];
    }
    return home;
  }
}
