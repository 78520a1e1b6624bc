package io.fanout.jobs.train;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.spark.train.TrainOptionsDefs;
import io.fanout.train.Accuracy;
import io.fanout.train.ModelRuns;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** {@code bin/fanout evaluate}: accuracy per split as JSON on stdout. */
public final class EvaluateCommand implements Command {
  static final OptionDef<String> MODE =
      OptionDef.choice(
          "mode", "full", "full-neighbor (layer-wise) or sampled inference", "full", "sampled");
  static final OptionDef<String> FANOUTS =
      OptionDef.string("fanouts", "", "fanouts of sampled inference (default: 20 per layer)");
  static final OptionDef<Integer> BATCH_SIZE =
      OptionDef.integer("batch-size", 1024, "seeds per batch of sampled inference");
  static final OptionDef<Long> SEED = OptionDef.longValue("seed", 0, "seed of sampled inference");

  @Override
  public String name() {
    return "evaluate";
  }

  @Override
  public String summary() {
    return "Accuracy of a trained model per split (full-neighbor or sampled inference), as JSON";
  }

  @Override
  public List<OptionDef<?>> options() {
    return List.of(
        TrainOptionsDefs.GRAPH, TrainOptionsDefs.MODEL_DIR, MODE, FANOUTS, BATCH_SIZE, SEED);
  }

  static int[] resolveFanouts(String mode, String fanouts, Path modelDir) {
    if (mode.equals("full")) {
      return null;
    }
    int[] f = TrainOptionsDefs.fanouts(fanouts);
    if (f == null) {
      int layers = io.fanout.train.Checkpoint.read(modelDir).modelConfig().layers();
      f = new int[layers];
      java.util.Arrays.fill(f, 20);
    }
    return f;
  }

  @Override
  public int run(CommandContext ctx) {
    FanoutConf c = ctx.conf();
    Path modelDir = Path.of(c.get(TrainOptionsDefs.MODEL_DIR));
    String mode = c.get(MODE);
    int[] fanouts = resolveFanouts(mode, c.get(FANOUTS), modelDir);
    Map<String, Accuracy> acc =
        ModelRuns.evaluate(
            Path.of(c.get(TrainOptionsDefs.GRAPH)),
            modelDir,
            fanouts,
            c.get(BATCH_SIZE),
            c.get(SEED));
    ctx.out().println(toJson(mode, fanouts, acc));
    return 0;
  }

  static String toJson(String mode, int[] fanouts, Map<String, Accuracy> acc) {
    StringBuilder sb = new StringBuilder("{\"mode\":\"").append(mode).append('"');
    if (fanouts != null) {
      sb.append(",\"fanouts\":").append(java.util.Arrays.toString(fanouts).replace(" ", ""));
    }
    sb.append(",\"accuracy\":{");
    boolean first = true;
    for (Map.Entry<String, Accuracy> e : acc.entrySet()) {
      sb.append(first ? "" : ",").append('"').append(e.getKey()).append("\":");
      sb.append(
          e.getValue().total() == 0
              ? "null"
              : String.format(Locale.ROOT, "%.6f", e.getValue().value()));
      first = false;
    }
    sb.append("},\"counts\":{");
    first = true;
    for (Map.Entry<String, Accuracy> e : acc.entrySet()) {
      sb.append(first ? "" : ",").append('"').append(e.getKey()).append("\":");
      sb.append(e.getValue().total());
      first = false;
    }
    return sb.append("}}").toString();
  }
}
