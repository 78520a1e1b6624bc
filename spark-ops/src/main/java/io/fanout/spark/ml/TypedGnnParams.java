package io.fanout.spark.ml;

import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;

/**
 * The Params that {@link TypedGnnClassifier} and its {@link TypedGnnClassificationModel} share:
 * those of every stage ({@link GnnStageParams}) and of node classification ({@link GnnNodeParams}),
 * and the typed graph's own: the target type and its multi-label {@code labelsCol}, the fanouts per
 * relation, {@code addReverse}, the learned embeddings of types without features, rgcn's {@code
 * bases}, hgn's {@code attnResidual} and {@code inputWidth}, and {@code earlyStop}.
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

  /**
   * Which vertices learn an embedding: {@code auto}, {@code all}, {@code non-target} or {@code
   * off}.
   */
  default Param<String> learnedEmbeddings() {
    return gnnParams().learnedEmbeddings;
  }

  /**
   * The target type's column of integer arrays, each vertex's set of classes (multi-label), read
   * instead of {@code labelCol}; empty: none (single-label).
   */
  default Param<String> labelsCol() {
    return gnnParams().labelsCol;
  }

  /** rgcn's relation weights as combinations of this many shared bases; 0: none. */
  default IntParam bases() {
    return gnnParams().bases;
  }

  /** hgn's edge residual beta in [0, 1); 0: off. */
  default DoubleParam attnResidual() {
    return gnnParams().attnResidual;
  }

  /**
   * Epochs in a row without a better validation Micro-F1 after which training ends ({@code train
   * --early-stop}); 0: off.
   */
  default IntParam earlyStop() {
    return gnnParams().earlyStop;
  }

  default int getEarlyStop() {
    return (Integer) getOrDefault(earlyStop());
  }

  /** hgn's width of the per-type input projections; 0: the hidden width. */
  default IntParam inputWidth() {
    return gnnParams().inputWidth;
  }

  default int getInputWidth() {
    return (Integer) getOrDefault(inputWidth());
  }

  default String getLabelsCol() {
    return getOrDefault(labelsCol());
  }

  /** Whether the target type has label sets ({@code labelsCol} set). */
  default boolean multiLabel() {
    return !getLabelsCol().isBlank();
  }

  default int getBases() {
    return (Integer) getOrDefault(bases());
  }

  default double getAttnResidual() {
    return (Double) getOrDefault(attnResidual());
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
