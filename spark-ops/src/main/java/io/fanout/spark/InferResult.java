package io.fanout.spark;

import io.fanout.train.ModelRuns;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What {@code infer} wrote, and its outputs as DataFrames read back from the Parquet directories.
 */
public final class InferResult {
  private final SparkSession spark;
  private final String output;
  private final String embeddingsOutput;
  private final ModelRuns.InferOutcome outcome;

  InferResult(
      SparkSession spark, String output, String embeddingsOutput, ModelRuns.InferOutcome outcome) {
    this.spark = spark;
    this.output = output;
    this.embeddingsOutput = embeddingsOutput;
    this.outcome = outcome;
  }

  /** The predictions directory as given, or null when none was asked for. */
  public String output() {
    return output;
  }

  /** The embeddings directory as given, or null when none was asked for. */
  public String embeddingsOutput() {
    return embeddingsOutput;
  }

  /** Rows of each output: one per vertex. */
  public long rows() {
    return outcome.rows();
  }

  /** Classes of the model (the length of {@code probabilities}). */
  public int classes() {
    return outcome.classes();
  }

  /** Width of the embeddings (the hidden width); 0 when none were asked for. */
  public int embeddingDim() {
    return outcome.embeddingDim();
  }

  /** True when every requested output was already complete for the same request. */
  public boolean skipped() {
    return (output == null || outcome.predictionsSkipped())
        && (embeddingsOutput == null || outcome.embeddingsSkipped());
  }

  /**
   * The predictions: {@code id} (the original id, with the id map's type), {@code dense_id} int,
   * {@code prediction} int, {@code probabilities} array&lt;float&gt; (softmax).
   *
   * @throws IllegalStateException when no predictions were asked for
   */
  public Dataset<Row> predictions() {
    if (output == null) {
      throw new IllegalStateException(
          "infer wrote no predictions: ask for them with output(path) (--output)");
    }
    return spark.read().parquet(output);
  }

  /**
   * The node embeddings: {@code id} (the original id, with the id map's type), {@code dense_id}
   * int, {@code embedding} array&lt;float&gt; of {@link #embeddingDim()} elements.
   *
   * @throws IllegalStateException when no embeddings were asked for
   */
  public Dataset<Row> embeddings() {
    if (embeddingsOutput == null) {
      throw new IllegalStateException(
          "infer wrote no embeddings: ask for them with embeddings(path) (--embeddings)");
    }
    return spark.read().parquet(embeddingsOutput);
  }

  /**
   * The JSON {@code bin/fanout infer} prints: {@code output} (when predictions were asked for),
   * {@code rows}, {@code embeddings} and {@code embedding_dim} (when embeddings were asked for) and
   * {@code skipped}.
   */
  public String toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    if (output != null) {
      m.put("output", output);
    }
    m.put("rows", rows());
    if (embeddingsOutput != null) {
      m.put("embeddings", embeddingsOutput);
      m.put("embedding_dim", embeddingDim());
    }
    m.put("skipped", skipped());
    return JsonLine.of(m);
  }

  @Override
  public String toString() {
    return toJson();
  }
}
