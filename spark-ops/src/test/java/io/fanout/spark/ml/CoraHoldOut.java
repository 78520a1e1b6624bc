package io.fanout.spark.ml;

import static org.apache.spark.ml.functions.array_to_vector;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;

import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Cora with 20% of its vertices held out of a fit: every vertex outside the train split whose id
 * modulo 100 is below 21 (about 540 of 2708), so a fit on the rest trains on the same 140 seeds as
 * a fit on the whole graph; the held-out vertices' edges are left out of the fit too.
 */
final class CoraHoldOut {
  /** Cora's vertices as stored: id, features ({@code array<float>}), label, split. */
  final Dataset<Row> raw;

  /** Cora's vertices with the features as an ML Vector, as a pipeline makes them. */
  final Dataset<Row> vertices;

  /** Every edge of cora. */
  final Dataset<Row> edges;

  /** The held-out vertices (with their labels, which scoring does not read). */
  final Dataset<Row> heldOut;

  /** The vertices a fit sees. */
  final Dataset<Row> kept;

  /** The edges between kept vertices. */
  final Dataset<Row> keptEdges;

  CoraHoldOut(SparkSession spark) {
    Path cora = SparkTestSession.dataset("cora");
    raw = spark.read().parquet(cora.resolve("vertices.parquet").toString());
    vertices = raw.withColumn("features", array_to_vector(col("features")));
    edges = spark.read().parquet(cora.resolve("edges.parquet").toString());
    Column out = col("split").notEqual(lit("train")).and(col("id").mod(100).lt(21));
    heldOut = vertices.filter(out);
    kept = vertices.filter(not(out));
    Dataset<Row> ids = kept.select(col("id").as("k"));
    keptEdges =
        edges
            .join(ids, edges.col("src").equalTo(ids.col("k")), "left_semi")
            .join(ids, edges.col("dst").equalTo(ids.col("k")), "left_semi");
  }
}
