package io.fanout.spark.sample;

import org.apache.spark.Partitioner;
import org.apache.spark.broadcast.Broadcast;

/**
 * {@code --batch-by-partition}: a batch goes to the task of the store partition its seeds come from
 * (the key is {@code epoch << 32 | batch}), which answers the batch's nodes it owns in place.
 */
final class HomePartitioner extends Partitioner {
  private static final long serialVersionUID = 1L;
  private final int n;
  final Broadcast<int[][]> home;

  HomePartitioner(int n, Broadcast<int[][]> home) {
    this.n = Math.max(n, 1);
    this.home = home;
  }

  @Override
  public int numPartitions() {
    return n;
  }

  @Override
  public int getPartition(Object key) {
    long id = (Long) key;
    return home.value()[(int) (id >>> 32)][(int) id];
  }
}
