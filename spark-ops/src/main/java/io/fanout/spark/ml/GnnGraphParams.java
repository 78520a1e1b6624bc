package io.fanout.spark.ml;

import org.apache.spark.ml.param.BooleanParam;
import org.apache.spark.ml.param.IntArrayParam;
import org.apache.spark.ml.param.Param;

/**
 * The Params the GNN stages of one-type graphs share beyond {@link GnnStageParams}: the graph's
 * shape ({@code undirected}, {@code dedupe}, {@code selfLoops}), the fanouts per hop and the
 * activation.
 */
public interface GnnGraphParams extends GnnStageParams {
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

  /** Activation between layers. */
  default Param<String> activation() {
    return gnnParams().activation;
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

  default String getActivation() {
    return getOrDefault(activation());
  }
}
