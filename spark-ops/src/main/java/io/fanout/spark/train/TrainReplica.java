package io.fanout.spark.train;

import java.io.Serializable;

/**
 * One replica's whole training run: the body that both the one-task job ({@link SingleWorkerTrain})
 * and every worker of the barrier stage ({@link DistributedTrain}) run, the one-type trainer's
 * ({@link OneTypeReplica}) or the typed trainers' ({@link TypedReplica}). It is serialized to the
 * executors: it captures the resolved options only, and rebuilds the run from them.
 */
interface TrainReplica extends Serializable {
  /**
   * Trains this replica as {@code slot} describes.
   *
   * @throws io.fanout.store.InvalidInputException on bad input, which the caller hands to the
   *     driver as the task's result
   */
  DistributedTrain.Outcome train(ReplicaSlot slot);
}
