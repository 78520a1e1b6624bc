package io.fanout.spark.ml;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The vertex and edge tables a node classifier was fitted on, as {@code prepare} read them (the
 * Params' column names; the vertices' id, features, label and split, the edges' endpoints): what
 * inductive scoring prepares again with new vertices. After a fit they are the fit's DataFrames;
 * {@link #write} saves them as Parquet next to a saved model's store, and {@link #saved} reads them
 * back.
 */
final class GraphTables {
  static final String VERTICES = "vertices";
  static final String EDGES = "edges";

  private final Dataset<Row> vertices;
  private final Dataset<Row> edges;
  private final String savedIn;

  private GraphTables(Dataset<Row> vertices, Dataset<Row> edges, String savedIn) {
    this.vertices = vertices;
    this.edges = edges;
    this.savedIn = savedIn;
  }

  /** The tables a fit handed to {@code prepare}. */
  static GraphTables of(Dataset<Row> vertices, Dataset<Row> edges) {
    return new GraphTables(vertices, edges, null);
  }

  /** The tables saved in {@code dir} by {@link #write}, or null when it holds none. */
  static GraphTables saved(Path dir) {
    boolean both =
        Files.isDirectory(dir.resolve(VERTICES)) && Files.isDirectory(dir.resolve(EDGES));
    return both ? new GraphTables(null, null, dir.toString()) : null;
  }

  Dataset<Row> vertices(SparkSession spark) {
    return vertices != null
        ? vertices
        : spark.read().parquet(Path.of(savedIn).resolve(VERTICES).toString());
  }

  Dataset<Row> edges(SparkSession spark) {
    return edges != null ? edges : spark.read().parquet(Path.of(savedIn).resolve(EDGES).toString());
  }

  /** Writes both tables as Parquet into {@code dir} ({@code vertices/}, {@code edges/}). */
  void write(SparkSession spark, Path dir) {
    vertices(spark).write().parquet(dir.resolve(VERTICES).toString());
    edges(spark).write().parquet(dir.resolve(EDGES).toString());
  }
}
