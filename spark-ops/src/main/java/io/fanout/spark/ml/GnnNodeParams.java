package io.fanout.spark.ml;

import org.apache.spark.ml.param.Param;

/**
 * The Params of the node classification stages beyond {@link GnnStageParams}, one-type or typed
 * graph: the label and split columns and the output columns.
 */
public interface GnnNodeParams extends GnnStageParams {
  /** Vertex label column: integer, or a double holding an integer; -1 or null = unlabeled. */
  default Param<String> labelCol() {
    return gnnParams().labelCol;
  }

  /** Vertex split column; without it in the DataFrame every labeled vertex trains. */
  default Param<String> splitCol() {
    return gnnParams().splitCol;
  }

  /** Output column of the predicted class (double). */
  default Param<String> predictionCol() {
    return gnnParams().predictionCol;
  }

  /** Output column of the class probabilities (ML Vector). */
  default Param<String> probabilityCol() {
    return gnnParams().probabilityCol;
  }

  /** Output column of the node embeddings (ML Vector); empty = none. */
  default Param<String> embeddingCol() {
    return gnnParams().embeddingCol;
  }

  default String getLabelCol() {
    return getOrDefault(labelCol());
  }

  default String getSplitCol() {
    return getOrDefault(splitCol());
  }

  default String getPredictionCol() {
    return getOrDefault(predictionCol());
  }

  default String getProbabilityCol() {
    return getOrDefault(probabilityCol());
  }

  default String getEmbeddingCol() {
    return getOrDefault(embeddingCol());
  }
}
