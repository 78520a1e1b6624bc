package io.fanout.spark.sample;

import io.fanout.sample.NegativeSampler;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The negative sampler of a partitioned link run, built on the executor that draws from it. The
 * degree mode weighs every vertex of the destination type by its in-degree, so each executor reads
 * the degrees of every partition from the store itself (the rows of their mapped CSR files): the
 * driver holds no array per vertex and ships none. One sampler per store version, relation and mode
 * is kept per JVM ({@link RecentlyUsed}); the others need only the vertex count.
 */
final class ExecutorNegatives implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The in-degrees of the vertices one partition holds, read where it runs. */
  interface PartitionDegrees extends Serializable {
    int[] of(int partition);
  }

  private static final Map<String, NegativeSampler> BUILT = RecentlyUsed.map();

  private final String mode;
  private final long[] firsts;
  private final String key;
  private final PartitionDegrees degrees;

  /**
   * @param firsts the first vertex of each of the partitions, then the vertex count
   * @param key names the store version and relation the degrees come from
   */
  ExecutorNegatives(String mode, long[] firsts, String key, PartitionDegrees degrees) {
    this.mode = mode;
    this.firsts = firsts.clone();
    this.key = key + "#" + mode;
    this.degrees = degrees;
  }

  /** The sampler, built on this JVM's first call for the run's store version. */
  NegativeSampler sampler() {
    synchronized (BUILT) {
      NegativeSampler s = BUILT.get(key);
      if (s == null) {
        s =
            PartitionedLinkSeeds.negatives(
                mode,
                firsts,
                () -> {
                  List<int[]> d = new ArrayList<>();
                  for (int p = 0; p < firsts.length - 1; p++) {
                    d.add(degrees.of(p));
                  }
                  return d;
                });
        BUILT.put(key, s);
      }
      return s;
    }
  }
}
