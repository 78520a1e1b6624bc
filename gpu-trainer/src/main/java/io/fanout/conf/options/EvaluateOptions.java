package io.fanout.conf.options;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.train.Checkpoint;
import io.fanout.train.CheckpointPick;
import io.fanout.train.Defaults;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * The options of {@code evaluate} (and the inference settings {@code infer} shares), for the API
 * and {@code bin/fanout evaluate}.
 */
public final class EvaluateOptions {
  private EvaluateOptions() {}

  public static final OptionDef<InferenceMode> NEIGHBORS =
      OptionDef.enumeration(
          "neighbors",
          InferenceMode.FULL,
          "full-neighbor (layer-wise) or sampled inference",
          InferenceMode::parse,
          InferenceMode.values());
  public static final OptionDef<String> FANOUTS =
      SharedOptions.FANOUTS.withDefault("", "fanouts of sampled inference (default: 20 per layer)");
  public static final OptionDef<Integer> BATCH_SIZE =
      SharedOptions.BATCH_SIZE.withDefault("1024", "seeds per batch of sampled inference");
  public static final OptionDef<Long> SEED =
      SharedOptions.SEED.withDefault("0", "seed of sampled inference");

  public static final OptionDef<CheckpointPick> CHECKPOINT =
      OptionDef.enumeration(
          "checkpoint",
          Checkpoint.DEFAULT_PICK,
          "which model of the model dir: last (the last complete epoch) or best (the epoch of best"
              + " validation accuracy; needs training with val-shards)",
          CheckpointPick::parse,
          CheckpointPick.values(),
          CheckpointPick::id);

  /** Every option of {@code evaluate}, in help order. */
  public static final List<OptionDef<?>> ALL =
      List.of(
          TrainCommandOptions.GRAPH,
          TrainCommandOptions.MODEL_DIR,
          CHECKPOINT,
          NEIGHBORS,
          FANOUTS,
          BATCH_SIZE,
          SEED,
          SharedOptions.VERIFY);

  /**
   * Refuses the inference settings that the chosen {@link #NEIGHBORS} mode does not read: {@code
   * fanouts} under full-neighbor inference.
   *
   * @throws io.fanout.conf.FanoutConfigException "option 'fanouts' of CAPABILITY is ignored: ..."
   */
  public static void refuseIgnored(FanoutConf c) {
    if (c.get(NEIGHBORS) == InferenceMode.FULL) {
      c.refuseIgnored(FANOUTS, "--neighbors full uses every neighbor; add --neighbors sampled");
    }
  }

  /**
   * The fanouts of the resolved inference settings: null for {@code full}; for {@code sampled} the
   * {@code fanouts} option, else {@link Defaults#INFERENCE_FANOUT} per layer of the model.
   */
  public static int[] fanouts(FanoutConf c) {
    refuseIgnored(c);
    if (c.get(NEIGHBORS) == InferenceMode.FULL) {
      return null;
    }
    if (c.get(BATCH_SIZE) <= 0) {
      throw new FanoutConfigException(
          "option 'batch-size' has value " + c.get(BATCH_SIZE) + "; expected a positive integer");
    }
    int[] f = SharedOptions.fanouts(c.get(FANOUTS));
    if (f == null) {
      Path modelDir = Path.of(c.get(TrainCommandOptions.MODEL_DIR));
      f = new int[Checkpoint.readForInference(modelDir, c.get(CHECKPOINT)).modelConfig().layers()];
      Arrays.fill(f, Defaults.INFERENCE_FANOUT);
    }
    return f;
  }
}
