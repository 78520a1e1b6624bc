package io.fanout.spark.ml;

import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.DoubleParam;
import org.apache.spark.ml.param.IntArrayParam;
import org.apache.spark.ml.param.IntParam;
import org.apache.spark.ml.param.LongParam;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.Params;

/**
 * The Params every GNN stage of this package shares (the graph's columns and shape, sampling, the
 * model and its training, the work folder), with their getters. Spark finds a Params' Params
 * through its public methods that return one, so each is a method here, backed by the owner's
 * {@link GnnParamSet}.
 */
public interface GnnGraphParams extends Params {
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

  /** Whether the reverse of every edge is added. */
  default BooleanParam undirected() {
    return gnnParams().undirected;
  }

  /** Whether repeated edges are kept once. */
  default BooleanParam dedupe() {
    return gnnParams().dedupe;
  }

  /** Edges v -> v: {@code keep} or {@code drop}. */
  default Param<String> selfLoops() {
    return gnnParams().selfLoops;
  }

  /** Neighbors sampled per node and hop, hop 1 first; -1 = all. Their count is the layers. */
  default IntArrayParam fanouts() {
    return gnnParams().fanouts;
  }

  /** Seeds per training mini-batch. */
  default IntParam batchSize() {
    return gnnParams().batchSize;
  }

  /** Epochs of sampled mini-batches, which training cycles through. */
  default IntParam sampleEpochs() {
    return gnnParams().sampleEpochs;
  }

  /** The architecture: {@code sage} or {@code gcn}. */
  default Param<String> modelType() {
    return gnnParams().modelType;
  }

  /** Hidden width. */
  default IntParam hidden() {
    return gnnParams().hidden;
  }

  /** Dropout on every layer's input. */
  default DoubleParam dropout() {
    return gnnParams().dropout;
  }

  /** Activation between layers. */
  default Param<String> activation() {
    return gnnParams().activation;
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

  default boolean getUndirected() {
    return (Boolean) getOrDefault(undirected());
  }

  default boolean getDedupe() {
    return (Boolean) getOrDefault(dedupe());
  }

  default String getSelfLoops() {
    return getOrDefault(selfLoops());
  }

  default int[] getFanouts() {
    return getOrDefault(fanouts()).clone();
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

  default int getHidden() {
    return (Integer) getOrDefault(hidden());
  }

  default double getDropout() {
    return (Double) getOrDefault(dropout());
  }

  default String getActivation() {
    return getOrDefault(activation());
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
