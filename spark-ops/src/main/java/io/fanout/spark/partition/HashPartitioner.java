package io.fanout.spark.partition;

import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.xxhash64;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.XXH64;

/** Partition = xxhash64(id) mod P: balanced for any id type, no locality. */
public final class HashPartitioner implements VertexPartitioner {
  /** The name given to {@code --partitioner}. */
  public static final String NAME = "hash";

  /** Spark's default seed of {@code xxhash64}. */
  private static final long SEED = 42L;

  @Override
  public String name() {
    return NAME;
  }

  /**
   * The partition {@link #assign} gives a numeric id, computed without Spark (for tasks that must
   * find an id's partition themselves).
   *
   * @param longIds whether ids are {@code bigint} (else {@code int}: Spark hashes the two types
   *     differently)
   */
  public static int partitionOf(long id, boolean longIds, int numPartitions) {
    long h = longIds ? XXH64.hashLong(id, SEED) : XXH64.hashInt((int) id, SEED);
    return (int) Math.floorMod(h, (long) numPartitions);
  }

  @Override
  public Column assign(Dataset<Row> vertices, Column id, int numPartitions) {
    return pmod(xxhash64(id), lit((long) numPartitions)).cast("int");
  }

  @Override
  public boolean scansVertices() {
    return false;
  }
}
