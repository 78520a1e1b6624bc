package io.fanout.spark.train;

import java.nio.file.Path;

/**
 * What a {@code train} run did, which {@code io.fanout.spark.TrainResult} presents to callers.
 *
 * @param modelDir the model directory
 * @param model the model kind, {@code sage} or {@code gcn}
 * @param layers the model's layers
 * @param epochsRun epochs this run trained (0 when resuming a finished run)
 * @param finalLoss the last epoch's mean training loss; NaN when no epoch ran
 * @param trainSeconds seconds spent in training epochs
 * @param waitSeconds of those, seconds spent waiting for batches
 * @param workers trainer replicas (1 unless data-parallel)
 * @param stageAttempt the attempt of the Spark stage that finished the run (0 unless retried)
 */
public record TrainOutcome(
    Path modelDir,
    String model,
    int layers,
    int epochsRun,
    double finalLoss,
    double trainSeconds,
    double waitSeconds,
    int workers,
    int stageAttempt) {

  /** The outcome of a launched run of {@code workers} workers into {@code modelDir}. */
  static TrainOutcome of(Path modelDir, DistributedTrain.Outcome o, int workers) {
    return new TrainOutcome(
        modelDir,
        o.model(),
        o.layers(),
        o.epochsRun(),
        o.finalLoss(),
        o.seconds(),
        o.waitSeconds(),
        workers,
        o.stageAttempt());
  }
}
