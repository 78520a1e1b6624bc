package io.fanout.spark.partition;

import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * Chooses the partition of every vertex. This is the only decision a partitioner makes: {@code
 * prepare} then hands out dense ids partition by partition, so partition {@code p} owns a
 * contiguous dense-id range. Implementations must be deterministic (same vertices, same assignment)
 * and may run a job over the vertices to fit themselves (e.g. id bounds).
 */
public interface VertexPartitioner {
  /** The name given to {@code --partitioner}. */
  String name();

  /**
   * An int column expression over {@code vertices} in {@code [0, numPartitions)}.
   *
   * @param vertices the vertex table
   * @param id the (non-null) vertex id column of {@code vertices}
   */
  Column assign(Dataset<Row> vertices, Column id, int numPartitions);

  /**
   * False when {@link #assign} runs no Spark job; {@code prepare} then has no step for it in its
   * job descriptions.
   */
  default boolean scansVertices() {
    return true;
  }
}
