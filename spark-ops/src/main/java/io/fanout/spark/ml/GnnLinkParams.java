package io.fanout.spark.ml;

import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.Param;

/**
 * The Params that {@link GnnLinkPredictor} and its {@link GnnLinkModel} share beyond {@link
 * GnnGraphParams}: the edge split, the negatives, the decoder and the score column.
 */
public interface GnnLinkParams extends GnnGraphParams {
  /** TRAIN,VAL,TEST fractions of the edges; empty = prepare's default split for link prediction. */
  default Param<String> edgeSplit() {
    return gnnParams().edgeSplit;
  }

  /** How negatives are drawn: {@code uniform}, {@code degree} or {@code in-batch}. */
  default Param<String> negatives() {
    return gnnParams().negatives;
  }

  /** Negatives per training edge. */
  default IntParam numNegatives() {
    return gnnParams().numNegatives;
  }

  /** The pair scorer: {@code dot} or {@code mlp}. */
  default Param<String> decoder() {
    return gnnParams().decoder;
  }

  /** Output column of the pair score (double: the decoder's logit). */
  default Param<String> scoreCol() {
    return gnnParams().scoreCol;
  }

  default String getEdgeSplit() {
    return getOrDefault(edgeSplit());
  }

  default String getNegatives() {
    return getOrDefault(negatives());
  }

  default int getNumNegatives() {
    return (Integer) getOrDefault(numNegatives());
  }

  default String getDecoder() {
    return getOrDefault(decoder());
  }

  default String getScoreCol() {
    return getOrDefault(scoreCol());
  }
}
