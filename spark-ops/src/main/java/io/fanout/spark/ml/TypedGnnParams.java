package io.fanout.spark.ml;

import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.Param;

/**
 * The Params that {@link TypedGnnClassifier} and its {@link TypedGnnClassificationModel} share:
 * those of every stage ({@link GnnStageParams}) and of node classification ({@link GnnNodeParams}),
 * and the typed graph's own: the target type, the fanouts per relation, {@code addReverse} and the
 * learned embeddings of types without features.
 */
public interface TypedGnnParams extends GnnNodeParams {
  /** The vertex type of fit's and transform's DataFrame, whose vertices are classified. */
  default Param<String> targetType() {
    return gnnParams().targetType;
  }

  /** Fanouts per relation and hop, as {@code sample --fanouts} on a typed store. */
  default Param<String> fanouts() {
    return gnnParams().relationFanouts;
  }

  /** Whether {@code rev_NAME} is added for every relation without a reverse. */
  default BooleanParam addReverse() {
    return gnnParams().addReverse;
  }

  /** Which vertices learn an embedding: {@code auto}, {@code all} or {@code off}. */
  default Param<String> learnedEmbeddings() {
    return gnnParams().learnedEmbeddings;
  }

  default String getTargetType() {
    return getOrDefault(targetType());
  }

  default String getFanouts() {
    return getOrDefault(fanouts());
  }

  default boolean getAddReverse() {
    return (Boolean) getOrDefault(addReverse());
  }

  default String getLearnedEmbeddings() {
    return getOrDefault(learnedEmbeddings());
  }
}
