package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.col;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.graph.PartitionerKind;
import io.fanout.spark.partition.VertexPartitioners;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The number of partitions and every vertex's partition: a column of the vertex table, or a table
 * {@code (_aid, _part)} to join with it.
 */
record PartitionAssignment(int parts, Column column, Dataset<Row> table) {

  /**
   * Assigns the vertices of {@code t} to {@code requested} partitions (0: one per {@link
   * PrepareOptions#AUTO_VERTICES_PER_PARTITION} vertices) with the run's {@code --partitioner}.
   */
  static PartitionAssignment of(FanoutConf conf, NormalizedTables t, int requested) {
    int parts = requested;
    if (parts == 0) {
      parts = PrepareOptions.autoPartitions(t.vertexNormalization.rows());
    }
    PartitionerKind kind = conf.get(PrepareOptions.PARTITIONER);
    if (kind.readsEdges()) {
      Dataset<Row> table =
          VertexPartitioners.graph(kind, conf.get(PrepareOptions.PARTITION_COARSE_VERTICES))
              .assign(
                  t.vertices.select(col(NormalizedTables.ID).as("id")).where(col("id").isNotNull()),
                  t.edges.select(
                      col(NormalizedTables.SRC).as("src"), col(NormalizedTables.DST).as("dst")),
                  parts,
                  conf.get(PrepareOptions.PARTITION_SEED));
      return new PartitionAssignment(
          parts, null, table.select(col("id").as("_aid"), col("part").as(PrepareJob.PART)));
    }
    return new PartitionAssignment(
        parts,
        VertexPartitioners.of(kind).assign(t.vertices, col(NormalizedTables.ID), parts),
        null);
  }
}
