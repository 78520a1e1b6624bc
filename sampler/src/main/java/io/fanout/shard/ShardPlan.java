package io.fanout.shard;

import java.io.Serializable;
import java.util.Locale;

/**
 * Which batches go into which shard file. Every epoch has the same number of batches ({@code
 * ceil(seeds / batchSize)}, the last possibly partial); part {@code p} of an epoch holds batches
 * {@code [p * batchesPerShard, min((p+1) * batchesPerShard, batches))}, so a part file's name and
 * content depend only on its range.
 */
public final class ShardPlan implements Serializable {
  private static final long serialVersionUID = 1L;

  private final long seeds;
  private final int batchSize;
  private final int epochs;
  private final int batchesPerShard;
  private final int batches;
  private final int parts;

  public ShardPlan(long seeds, int batchSize, int epochs, int batchesPerShard) {
    if (batchSize < 1 || epochs < 1 || batchesPerShard < 1 || seeds < 0) {
      throw new IllegalArgumentException("bad shard plan");
    }
    long b = (seeds + batchSize - 1) / batchSize;
    if (b > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(seeds + " seeds make too many batches");
    }
    this.seeds = seeds;
    this.batchSize = batchSize;
    this.epochs = epochs;
    this.batchesPerShard = batchesPerShard;
    this.batches = (int) b;
    this.parts = (int) ((b + batchesPerShard - 1) / batchesPerShard);
  }

  public long seeds() {
    return seeds;
  }

  public int batchSize() {
    return batchSize;
  }

  public int epochs() {
    return epochs;
  }

  public int batchesPerShard() {
    return batchesPerShard;
  }

  /** Batches in each epoch. */
  public int batchesPerEpoch() {
    return batches;
  }

  /** Part files in each epoch. */
  public int partsPerEpoch() {
    return parts;
  }

  /** Part files over all epochs. */
  public long totalParts() {
    return (long) parts * epochs;
  }

  public int firstBatch(int part) {
    return part * batchesPerShard;
  }

  public int endBatch(int part) {
    return (int) Math.min((long) (part + 1) * batchesPerShard, batches);
  }

  /** The part holding {@code batch}. */
  public int partOf(int batch) {
    return batch / batchesPerShard;
  }

  /** The seeds of {@code batch}: {@code [batch * batchSize, +count)} of the epoch's order. */
  public int seedCount(int batch) {
    return (int) Math.min(batchSize, seeds - (long) batch * batchSize);
  }

  /** {@code epoch-NNNN}. */
  public static String epochDir(int epoch) {
    return String.format(Locale.ROOT, "epoch-%04d", epoch);
  }

  /** {@code epoch-NNNN/part-NNNNN.parquet}, relative to the output directory. */
  public static String partPath(int epoch, int part) {
    return epochDir(epoch) + String.format(Locale.ROOT, "/part-%05d.parquet", part);
  }
}
