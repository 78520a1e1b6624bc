package io.fanout.spark;

import java.util.Objects;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Entry point of Fanout's Spark actions.
 *
 * <pre>{@code
 * PrepareResult r = Fanout.get(spark)
 *     .prepare(graph.vertices(), graph.edges())   // e.g. a GraphFrame's tables
 *     .option("undirected", "true")
 *     .output("/data/cora.store")
 *     .execute();
 * }</pre>
 */
public final class Fanout {
  private final SparkSession spark;

  private Fanout(SparkSession spark) {
    this.spark = Objects.requireNonNull(spark);
  }

  public static Fanout get(SparkSession spark) {
    return new Fanout(spark);
  }

  /**
   * Prepares a graph store from a vertex table ({@code id}, optional {@code features}, {@code
   * label}, {@code split}) and an edge table ({@code src}, {@code dst}); column names are options.
   */
  public PrepareAction prepare(Dataset<Row> vertices, Dataset<Row> edges) {
    return new PrepareAction(
        spark, Objects.requireNonNull(vertices), Objects.requireNonNull(edges));
  }

  /** Prepares a graph store from the paths given as {@code vertices} and {@code edges} options. */
  public PrepareAction prepare() {
    return new PrepareAction(spark, null, null);
  }
}
