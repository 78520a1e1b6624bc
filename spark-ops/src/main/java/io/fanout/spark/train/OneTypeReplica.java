package io.fanout.spark.train;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.train.TrainRun;
import io.fanout.train.TrainSpec;
import java.util.Map;

/** The one-type trainer's replica: {@link TrainRun#train} of the spec the options resolve to. */
final class OneTypeReplica implements TrainReplica {
  private static final long serialVersionUID = 1L;

  private final Map<String, String> options;

  /**
   * @param options the resolved options, paths absolute ({@link DistributedTrain#shippedOptions})
   */
  OneTypeReplica(Map<String, String> options) {
    this.options = options;
  }

  @Override
  public DistributedTrain.Outcome train(ReplicaSlot slot) {
    TrainSpec base =
        TrainOptionsDefs.spec(FanoutConf.of("train", TrainCommandOptions.TRAIN, options));
    TrainSpec spec =
        base.toBuilder()
            .device(d -> d.withOrdinal(GpuAssignment.forCurrentTask(d.backend())))
            .build();
    TrainRun.Result r =
        TrainRun.train(
            spec,
            slot.progress(),
            model -> slot.reducer().wire(model::params, spec.output().modelDir()),
            slot.retry(),
            slot.cancelled(),
            model -> slot.reducer().verifyNow());
    return DistributedTrain.Outcome.of(r, slot.attempt());
  }
}
