package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.col;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.spark.partition.VertexPartitioners;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A graph partitioner ({@code --partitioner multilevel}) on a typed graph: the vertices of all
 * types are partitioned together over the union of all relations, as one undirected graph. Each
 * type's distinct ids are numbered in ascending order after the types before it (type {@code t} one
 * contiguous range of global numbers, in the graph's type order, as the store's global dense ids
 * are), each relation's endpoints are translated to those numbers (endpoints that are not ids of
 * their type are left out), and the partitioner assigns every number one of {@code P} partitions;
 * each type's vertices then go to the partition of their number, so every type has the same {@code
 * P} partitions and partition {@code p} of every type holds one part of the graph. Deterministic:
 * the numbering follows the ids' order, and the partitioner's assignment depends on the numbered
 * graph and the seed only.
 */
final class TypedGraphPartitioning {
  private final int parts;
  private final Map<String, Dataset<Row>> byType;

  private TypedGraphPartitioning(int parts, Map<String, Dataset<Row>> byType) {
    this.parts = parts;
    this.byType = byType;
  }

  /** The partitions of every type. */
  int parts() {
    return parts;
  }

  /** Type {@code type}'s assignment {@code (_aid, _part)}: each distinct id's partition. */
  Dataset<Row> of(String type) {
    return byType.get(type);
  }

  /**
   * Partitions the types and relations of {@code in} into {@code requested} partitions (0: one per
   * {@link PrepareOptions#AUTO_VERTICES_PER_PARTITION} vertices of all types together) with the
   * run's {@code --partitioner}, which reads edges.
   *
   * @param relations the relations given (an added reverse adds no undirected edge)
   */
  static TypedGraphPartitioning of(
      SparkSession spark,
      FanoutConf conf,
      List<TypedTables.TypeTable> types,
      List<TypedTables.RelationTable> relations,
      int requested) {
    Map<String, Dataset<Row>> numbers = new LinkedHashMap<>();
    Map<String, String> idTypes = new LinkedHashMap<>();
    long next = 0;
    for (TypedTables.TypeTable t : types) {
      VertexNormalization n = VertexNormalization.of(t);
      idTypes.put(t.name(), n.idTypeName());
      Dataset<Row> ids = numbered(spark, n.vertices.select(col(NormalizedTables.ID)), next);
      numbers.put(t.name(), ids);
      next += ids.count();
    }
    int k = requested > 0 ? requested : PrepareOptions.autoPartitions(next);
    Dataset<Row> vertices = null;
    for (Dataset<Row> ids : numbers.values()) {
      Dataset<Row> g = ids.select(col("g").as("id"));
      vertices = vertices == null ? g : vertices.union(g);
    }
    List<Dataset<Row>> edgeTables = new ArrayList<>();
    for (TypedTables.RelationTable r : relations) {
      Dataset<Row> e = r.table();
      Dataset<Row> s = numbers.get(r.srcType());
      Dataset<Row> d = numbers.get(r.dstType());
      Dataset<Row> pairs =
          e.select(
              RelationEdgeStage.converted(e, r, r.srcColumn(), idTypes.get(r.srcType())).as("_s"),
              RelationEdgeStage.converted(e, r, r.dstColumn(), idTypes.get(r.dstType())).as("_d"));
      edgeTables.add(
          pairs
              .join(
                  s.select(col("id").as("_sid"), col("g").as("src")),
                  col("_s").equalTo(col("_sid")))
              .join(
                  d.select(col("id").as("_did"), col("g").as("dst")),
                  col("_d").equalTo(col("_did")))
              .select(col("src"), col("dst")));
    }
    Dataset<Row> edges =
        spark.createDataFrame(
            List.<Row>of(),
            new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType));
    for (Dataset<Row> e : edgeTables) {
      edges = edges.union(e);
    }
    Dataset<Row> assigned =
        VertexPartitioners.graph(
                conf.get(PrepareOptions.PARTITIONER),
                conf.get(PrepareOptions.PARTITION_COARSE_VERTICES))
            .assign(vertices, edges, k, conf.get(PrepareOptions.PARTITION_SEED));
    Map<String, Dataset<Row>> byType = new LinkedHashMap<>();
    for (Map.Entry<String, Dataset<Row>> x : numbers.entrySet()) {
      Dataset<Row> ids = x.getValue();
      byType.put(
          x.getKey(),
          ids.join(assigned, ids.col("g").equalTo(assigned.col("id")))
              .select(ids.col("id").as("_aid"), assigned.col("part").as(PrepareJob.PART)));
    }
    return new TypedGraphPartitioning(k, byType);
  }

  /**
   * {@code (id, g)}: the distinct non-null ids of the one-column table {@code ids}, numbered {@code
   * first, first + 1, ...} in ascending order; materialized.
   */
  private static Dataset<Row> numbered(SparkSession spark, Dataset<Row> ids, long first) {
    Dataset<Row> sorted = ids.toDF("id").where(col("id").isNotNull()).distinct().sort(col("id"));
    StructType schema =
        new StructType()
            .add("id", sorted.schema().fields()[0].dataType(), false)
            .add("g", DataTypes.LongType, false);
    JavaRDD<Row> rows =
        sorted.javaRDD().zipWithIndex().map(t -> RowFactory.create(t._1.get(0), first + t._2));
    rows.rdd().localCheckpoint();
    rows.count();
    return spark.createDataFrame(rows, schema);
  }
}
