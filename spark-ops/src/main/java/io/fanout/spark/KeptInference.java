package io.fanout.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.train.ModelInference;
import io.fanout.train.PairScoring;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * What {@code infer} with {@code mode("ignore")} returns when every output it was asked for is
 * already complete: the earlier result, read from the outputs' {@code _SUCCESS} files (rows,
 * classes or dimension), whatever request wrote them.
 */
final class KeptInference {
  private static final ObjectMapper JSON = new ObjectMapper();

  private KeptInference() {}

  /** The earlier node outputs; null unless every given one (null: not asked for) is complete. */
  static InferResult nodes(SparkSession spark, String predictions, String embeddings) {
    JsonNode p = predictions == null ? null : success(predictions);
    JsonNode e = embeddings == null ? null : success(embeddings);
    if ((predictions != null && p == null) || (embeddings != null && e == null)) {
      return null;
    }
    JsonNode any = p != null ? p : e;
    return new InferResult(
        spark,
        predictions,
        embeddings,
        new ModelInference.Outcome(
            any.path("rows").asLong(),
            p == null ? 0 : p.path("classes").asInt(),
            e == null ? 0 : e.path("dim").asInt(),
            p != null,
            e != null));
  }

  /** The earlier pair scores; null unless {@code output} is complete. */
  static InferResult pairs(SparkSession spark, String output) {
    JsonNode s = success(output);
    return s == null
        ? null
        : InferResult.ofPairs(
            spark, output, new PairScoring.Outcome(s.path("rows").asLong(), true));
  }

  /** The fields of {@code dir}'s {@code _SUCCESS}, or null when it has none (not complete). */
  private static JsonNode success(String dir) {
    Path f = Path.of(dir).resolve("_SUCCESS");
    if (!Files.isRegularFile(f)) {
      return null;
    }
    try {
      return JSON.readTree(Files.readString(f));
    } catch (IOException e) {
      return null;
    }
  }
}
