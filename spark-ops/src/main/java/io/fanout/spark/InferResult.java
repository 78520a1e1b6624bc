package io.fanout.spark;

import io.fanout.spark.internal.JsonLine;
import io.fanout.train.ModelInference;
import io.fanout.train.PairScoring;
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
  private final ModelInference.Outcome outcome;
  private final PairScoring.Outcome pairs;

  InferResult(
      SparkSession spark, String output, String embeddingsOutput, ModelInference.Outcome outcome) {
    this(spark, output, embeddingsOutput, outcome, null);
  }

  private InferResult(
      SparkSession spark,
      String output,
      String embeddingsOutput,
      ModelInference.Outcome outcome,
      PairScoring.Outcome pairs) {
    this.spark = spark;
    this.output = output;
    this.embeddingsOutput = embeddingsOutput;
    this.outcome = outcome;
    this.pairs = pairs;
  }

  /** The result of scoring candidate pairs ({@code task link}) into {@code output}. */
  static InferResult ofPairs(SparkSession spark, String output, PairScoring.Outcome pairs) {
    return new InferResult(spark, output, null, null, pairs);
  }

  /** {@code link} when candidate pairs were scored, else {@code node}. */
  public String task() {
    return pairs != null ? "link" : "node";
  }

  /** The predictions directory as given, or null when none was asked for. */
  public String output() {
    return output;
  }

  /** The embeddings directory as given, or null when none was asked for. */
  public String embeddingsOutput() {
    return embeddingsOutput;
  }

  /** Rows of each output: one per vertex, or one per candidate pair ({@code task link}). */
  public long rows() {
    return pairs != null ? pairs.rows() : outcome.rows();
  }

  /** Classes of the model (the length of {@code probabilities}); 0 for pair scores. */
  public int classes() {
    return pairs != null ? 0 : outcome.classes();
  }

  /** Width of the embeddings (the hidden width); 0 when none were asked for. */
  public int embeddingDim() {
    return pairs != null ? 0 : outcome.embeddingDim();
  }

  /** True when every requested output was already complete for the same request. */
  public boolean skipped() {
    if (pairs != null) {
      return pairs.skipped();
    }
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
    if (pairs != null) {
      throw new IllegalStateException(
          "infer --task link wrote pair scores, not predictions: read them with pairScores()");
    }
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
   * The scores of the candidate pairs ({@code task link}), in the pairs table's order: {@code src},
   * {@code dst} (original ids, with the id map's type) and {@code score} float (the decoder's
   * logit; its sigmoid is the link probability).
   *
   * @throws IllegalStateException when no pairs were scored
   */
  public Dataset<Row> pairScores() {
    if (pairs == null) {
      throw new IllegalStateException(
          "infer scored no pairs: ask for them with pairs(table) (--task link --pairs)");
    }
    return spark.read().parquet(output);
  }

  /**
   * The JSON {@code bin/fanout infer} prints: {@code output} (when predictions were asked for),
   * {@code rows}, {@code embeddings} and {@code embedding_dim} (when embeddings were asked for) and
   * {@code skipped}; for pair scores {@code task} ({@code link}), {@code output}, {@code rows} and
   * {@code skipped}.
   */
  public String toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    if (pairs != null) {
      m.put("task", "link");
      m.put("output", output);
      m.put("rows", rows());
      m.put("skipped", skipped());
      return JsonLine.of(m);
    }
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
