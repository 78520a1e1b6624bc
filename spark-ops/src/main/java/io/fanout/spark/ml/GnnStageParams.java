package io.fanout.spark.ml;

import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * The Params every GNN stage of this package shares, one-type or typed graph: the id, feature and
 * endpoint columns, sampling's batch size and epochs, the model (with the attention settings of gat
 * and, typed, hgn) and its training, the work folder, with their getters. Spark finds a Params'
 * Params through its public methods that return one, so each is a method here, backed by the
 * owner's {@link GnnParamSet}.
 */
public interface GnnStageParams extends Params {
  /** The Param objects of this instance. */
  GnnParamSet gnnParams();

  /** Vertex id column (default as {@code prepare}'s {@code id-column}). */
  default Param<String> idCol() {
    return gnnParams().idCol;
  }

  /** Vertex features column: ML Vector, array&lt;float&gt; or array&lt;double&gt;. */
  default Param<String> featuresCol() {
    return gnnParams().featuresCol;
  }

  /** Edge source column of the edges DataFrame. */
  default Param<String> srcCol() {
    return gnnParams().srcCol;
  }

  /** Edge destination column of the edges DataFrame. */
  default Param<String> dstCol() {
    return gnnParams().dstCol;
  }

  /** Seeds per training mini-batch. */
  default IntParam batchSize() {
    return gnnParams().batchSize;
  }

  /** Epochs of sampled mini-batches, which training cycles through. */
  default IntParam sampleEpochs() {
    return gnnParams().sampleEpochs;
  }

  /**
   * The architecture: {@code sage}, {@code gcn} or {@code gat}; typed: {@code rgcn}, {@code hsage}
   * or {@code hgn}.
   */
  default Param<String> modelType() {
    return gnnParams().modelType;
  }

  /**
   * Attention heads of every hidden layer: gat's, which split the hidden width between them; typed:
   * hgn's, each of the hidden width.
   */
  default IntParam heads() {
    return gnnParams().heads;
  }

  /** Negative slope of the LeakyReLU on the attention scores (gat; typed: hgn). */
  default DoubleParam attnSlope() {
    return gnnParams().attnSlope;
  }

  /** Dropout on the attention weights in training (gat; typed: hgn). */
  default DoubleParam attnDropout() {
    return gnnParams().attnDropout;
  }

  /** Hidden width. */
  default IntParam hidden() {
    return gnnParams().hidden;
  }

  /** Dropout on every layer's input. */
  default DoubleParam dropout() {
    return gnnParams().dropout;
  }

  /** Row normalization of the input features. */
  default Param<String> featureNorm() {
    return gnnParams().featureNorm;
  }

  /** Adam learning rate. */
  default DoubleParam learningRate() {
    return gnnParams().learningRate;
  }

  /** L2 weight decay. */
  default DoubleParam weightDecay() {
    return gnnParams().weightDecay;
  }

  /** Training epochs in total. */
  default IntParam epochs() {
    return gnnParams().epochs;
  }

  /** Seed of sampling, initialization and dropout. */
  default LongParam seed() {
    return gnnParams().seed;
  }

  /** Folder of the store, shards and model; empty = a new one under the local temp folder. */
  default Param<String> workDir() {
    return gnnParams().workDir;
  }

  default String getIdCol() {
    return getOrDefault(idCol());
  }

  default String getFeaturesCol() {
    return getOrDefault(featuresCol());
  }

  default String getSrcCol() {
    return getOrDefault(srcCol());
  }

  default String getDstCol() {
    return getOrDefault(dstCol());
  }

  default int getBatchSize() {
    return (Integer) getOrDefault(batchSize());
  }

  default int getSampleEpochs() {
    return (Integer) getOrDefault(sampleEpochs());
  }

  default String getModelType() {
    return getOrDefault(modelType());
  }

  default int getHeads() {
    return (Integer) getOrDefault(heads());
  }

  default double getAttnSlope() {
    return (Double) getOrDefault(attnSlope());
  }

  default double getAttnDropout() {
    return (Double) getOrDefault(attnDropout());
  }

  default int getHidden() {
    return (Integer) getOrDefault(hidden());
  }

  default double getDropout() {
    return (Double) getOrDefault(dropout());
  }

  default String getFeatureNorm() {
    return getOrDefault(featureNorm());
  }

  default double getLearningRate() {
    return (Double) getOrDefault(learningRate());
  }

  default double getWeightDecay() {
    return (Double) getOrDefault(weightDecay());
  }

  default int getEpochs() {
    return (Integer) getOrDefault(epochs());
  }

  default long getSeed() {
    return (Long) getOrDefault(seed());
  }

  default String getWorkDir() {
    return getOrDefault(workDir());
  }
}
