package io.fanout.spark.sample;

import java.io.Serializable;

/** (epoch, sort key) ordered as the replicated sampler's sort of sort keys. */
final class EpochKey implements Comparable<EpochKey>, Serializable {
  private static final long serialVersionUID = 1L;
  final int epoch;

  /** The partition's rank in the epoch with --batch-by-partition; else 0. */
  final int group;

  final long key;

  EpochKey(int epoch, int group, long key) {
    this.epoch = epoch;
    this.group = group;
    this.key = key;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EpochKey k && k.epoch == epoch && k.group == group && k.key == key;
  }

  @Override
  public int hashCode() {
    return (Long.hashCode(key) * 31 + epoch) * 31 + group;
  }

  @Override
  public int compareTo(EpochKey o) {
    int c = Integer.compare(epoch, o.epoch);
    if (c == 0) {
      c = Integer.compare(group, o.group);
    }
    return c != 0 ? c : Long.compare(key, o.key);
  }
}
