package io.fanout.spark.partition;

import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.xxhash64;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/** Partition = xxhash64(id) mod P: balanced for any id type, no locality. */
final class HashPartitioner implements VertexPartitioner {
  @Override
  public String name() {
    return "hash";
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
