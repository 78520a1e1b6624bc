package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.element_at;
import static org.apache.spark.sql.functions.greatest;
import static org.apache.spark.sql.functions.lit;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.unsafe.hash.Murmur3_x86_32;

/**
 * Sends the rows of store partition {@code p} to shuffle partition {@code p}.
 *
 * <p>{@code Dataset.repartition(n, c)} places a row by {@code pmod(murmur3(c, 42), n)}. Shuffling
 * by {@code _part} itself would let two store partitions share a task while others idle, so rows
 * are shuffled by a key chosen per partition whose hash lands exactly on {@code p}. Correctness
 * does not depend on it: the part writers handle any number of store partitions per task.
 */
final class Routing {
  private Routing() {}

  /** For each {@code p < n}, the smallest int key with {@code pmod(murmur3(key, 42), n) == p}. */
  static int[] keys(int n) {
    int[] keys = new int[n];
    boolean[] found = new boolean[n];
    int left = n;
    for (int k = 0; left > 0; k++) {
      int p = Math.floorMod(Murmur3_x86_32.hashInt(k, 42), n);
      if (!found[p]) {
        found[p] = true;
        keys[p] = k;
        left--;
      }
    }
    return keys;
  }

  /**
   * {@code table} shuffled into {@code n} partitions by its int column {@code part}, rows with
   * {@code part < 0} going with partition 0, then sorted within partitions by {@code sortBy}.
   */
  static Dataset<Row> byPartition(Dataset<Row> table, String part, int n, String... sortBy) {
    Column[] sort = new Column[sortBy.length];
    for (int i = 0; i < sortBy.length; i++) {
      sort[i] = col(sortBy[i]);
    }
    return shuffle(table, part, n).sortWithinPartitions(sort);
  }

  /**
   * {@code table} shuffled into {@code n} partitions by its int column {@code part}, rows with
   * {@code part < 0} going with partition 0, in no particular order within a partition. The routing
   * key is an expression of the exchange, not a column of the shuffled rows.
   */
  static Dataset<Row> shuffle(Dataset<Row> table, String part, int n) {
    return table.repartition(n, element_at(lit(keys(n)), greatest(col(part), lit(0)).plus(1)));
  }
}
