package io.fanout.spark.train;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.graph.TypedGraph;
import io.fanout.spark.internal.Hooks;
import io.fanout.spark.sample.TypedStoreOpener;
import io.fanout.train.typed.TypedTrainRequest;
import io.fanout.train.typed.TypedTrainRun;
import java.nio.file.Path;
import java.util.Map;

/**
 * The typed trainers' replica: opens the typed store with the session's {@link TypedStoreOpener}
 * and runs {@link TypedTrainRun#train} (node classification or link prediction, as the shards say)
 * as one replica of the run.
 */
final class TypedReplica implements TrainReplica {
  private static final long serialVersionUID = 1L;

  private final Map<String, String> options;
  private final String openerClass;

  /**
   * @param options the resolved options, paths absolute ({@link DistributedTrain#shippedOptions})
   * @param openerClass the {@link TypedStoreOpener} class name, instantiated in the task
   */
  TypedReplica(Map<String, String> options, String openerClass) {
    this.options = options;
    this.openerClass = openerClass;
  }

  @Override
  public DistributedTrain.Outcome train(ReplicaSlot slot) {
    FanoutConf c = FanoutConf.of("train", TrainCommandOptions.TRAIN, options);
    TypedStoreOpener opener =
        Hooks.instantiate(Hooks.TYPED_STORE_OPENER, openerClass, TypedStoreOpener.class);
    TypedGraph graph =
        opener.open(Path.of(c.get(TrainCommandOptions.GRAPH)), c.get(SharedOptions.VERIFY));
    try {
      TypedTrainRequest request =
          TypedTrainJob.request(
              c, graph, GpuAssignment.forCurrentTask(c.get(TrainCommandOptions.BACKEND)));
      TypedTrainRun.Result r =
          TypedTrainRun.train(
              request,
              slot.progress(),
              new TypedTrainRun.Replica(
                  model -> slot.reducer().wire(model::params, request.modelDir()),
                  slot.retry(),
                  slot.cancelled(),
                  model -> slot.reducer().verifyNow()));
      return DistributedTrain.Outcome.of(r, slot.attempt());
    } finally {
      graph.close();
    }
  }
}
