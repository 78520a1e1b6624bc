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
 * SampleResult shards = Fanout.get(spark)
 *     .sample("/data/cora.store").output("/data/cora.shards").fanouts(25, 10).epochs(10)
 *     .execute();
 * TrainResult model = Fanout.get(spark)
 *     .train("/data/cora.store", "/data/cora.shards").modelDir("/data/cora.model").epochs(10)
 *     .execute();
 * model.metrics().show();
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

  /**
   * Prepares a graph store from the paths given as {@code vertices} and {@code edges} options, or a
   * typed graph: from the {@code graph-spec} option's description, or from the tables added with
   * {@link PrepareAction#vertices(String, Dataset)} and {@link PrepareAction#edges(String, String,
   * String, Dataset)}.
   */
  public PrepareAction prepare() {
    return new PrepareAction(spark, null, null);
  }

  /**
   * Re-encodes the features of the f32 graph store at {@code store} into a new store, without
   * rereading the input tables.
   *
   * <pre>{@code
   * Fanout.get(spark).quantize("/data/cora.store").encoding("int8").output("/data/cora.int8")
   *     .execute();
   * }</pre>
   */
  public QuantizeAction quantize(String store) {
    return new QuantizeAction(spark, Objects.requireNonNull(store, "store"));
  }

  /**
   * Samples mini-batch shards from the graph store at {@code store} (null: the {@code graph}
   * option).
   */
  public SampleAction sample(String store) {
    return new SampleAction(spark, store);
  }

  /**
   * Trains a GNN on the graph store at {@code store} and the training shards at {@code shards}
   * (null: the {@code graph} and {@code shards} options).
   */
  public TrainAction train(String store, String shards) {
    return new TrainAction(spark, store, shards);
  }

  /**
   * Evaluates the model in {@code modelDir} on the graph store {@code store}: accuracy per split.
   *
   * <pre>{@code
   * EvaluateResult r = Fanout.get(spark).evaluate(store, modelDir).execute();
   * double test = r.accuracy("test");
   * }</pre>
   */
  public EvaluateAction evaluate(String store, String modelDir) {
    return new EvaluateAction(
        spark,
        Objects.requireNonNull(store, "store"),
        Objects.requireNonNull(modelDir, "modelDir"));
  }

  /**
   * Predictions and/or node embeddings of every vertex of {@code store} by the model in {@code
   * modelDir}, as Parquet keyed by the original ids.
   *
   * <pre>{@code
   * InferResult r = Fanout.get(spark).infer(store, modelDir)
   *     .output("/data/cora.predictions")
   *     .embeddings("/data/cora.embeddings")
   *     .execute();
   * Dataset<Row> embeddings = r.embeddings();   // id, dense_id, embedding
   * }</pre>
   */
  public InferAction infer(String store, String modelDir) {
    return new InferAction(
        spark,
        Objects.requireNonNull(store, "store"),
        Objects.requireNonNull(modelDir, "modelDir"));
  }
}
