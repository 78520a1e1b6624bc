package io.fanout.spark.train;

import java.io.PrintStream;
import java.util.function.BooleanSupplier;

/**
 * Where a {@link TrainReplica} runs: in the one-task job or as one worker of the barrier stage.
 *
 * @param attempt the task's (one-task job) or the stage's (barrier) attempt number
 * @param retry resume from the model dir's last checkpoint whatever the options say (a retried
 *     attempt)
 * @param progress where progress lines go (rank 0 only; null for none)
 * @param cancelled true once Spark has killed the task (its job group was cancelled, or a peer
 *     failed)
 * @param reducer how the replica's gradients reach the others
 */
record ReplicaSlot(
    int attempt,
    boolean retry,
    PrintStream progress,
    BooleanSupplier cancelled,
    ReplicaReducer reducer) {}
