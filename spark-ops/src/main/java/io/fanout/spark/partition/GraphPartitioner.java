package io.fanout.spark.partition;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * A partitioner that reads the edges: it returns every vertex's partition as a table rather than a
 * column expression. Like {@link VertexPartitioner}, the assignment must be deterministic for the
 * same vertices, edges and seed, whatever the number of Spark tasks.
 */
public interface GraphPartitioner {
  /** The name given to {@code --partitioner}. */
  String name();

  /**
   * One row {@code (id, part)} per distinct vertex id, {@code part} an int in {@code [0,
   * numPartitions)}; the table is materialized (its lineage does not recompute the partitioning).
   *
   * @param vertices one column {@code id}, the vertex ids (non-null)
   * @param edges columns {@code src} and {@code dst}, vertex ids; edges whose endpoint is not a
   *     vertex are ignored, the direction is ignored
   */
  Dataset<Row> assign(Dataset<Row> vertices, Dataset<Row> edges, int numPartitions, long seed);
}
