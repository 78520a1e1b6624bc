package io.fanout.train.typed;

import io.fanout.nn.Adam;
import io.fanout.nn.typed.TypedModel;
import io.fanout.store.InvalidInputException;
import io.fanout.train.Checkpoint;
import io.fanout.train.EarlyStop;
import io.fanout.train.ModelDirFiles;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What both typed trainers (node classification and link prediction) do with their model dir
 * between epochs: resume from {@code checkpoint.bin} (the same model and options only), write
 * {@code checkpoint.bin} after every epoch and {@code best.bin} at each new best validation score,
 * and append the epoch's line to {@code metrics.jsonl}.
 */
final class TypedModelDir {
  private TypedModelDir() {}

  /**
   * The value an identity key had in checkpoints written before the key was recorded: those runs
   * trained with it, so they resume under it.
   */
  private static final Map<String, String> BEFORE_KEY =
      Map.of(
          "identity.schedule",
          io.fanout.nn.LrSchedule.CONSTANT.id(),
          TypedTrainOptions.PRECISION_KEY,
          io.fanout.tensor.MatmulPrecision.FP32.id());

  /** Where training starts: the epochs already run and the best validation score so far. */
  record Progress(int startEpoch, double best, int bestEpoch) {
    static final Progress FRESH = new Progress(0, -1, -1);
  }

  /**
   * Restores {@code model} and {@code adam} from {@code modelDir/checkpoint.bin} when there is one
   * (refusing one of another model or trained with another {@code identity}); {@link
   * Progress#FRESH} otherwise.
   *
   * @param bestKey the metadata key of the best validation score ({@code best.val_...})
   */
  static Progress resume(
      Path modelDir, TypedModel model, Adam adam, Map<String, String> identity, String bestKey) {
    if (modelDir == null || !TypedCheckpoint.exists(modelDir)) {
      return Progress.FRESH;
    }
    TypedCheckpoint.Loaded l = TypedCheckpoint.read(modelDir, Checkpoint.FILE);
    if (!l.config().equals(model.config())) {
      throw new InvalidInputException(
          modelDir + " holds a checkpoint of another model: " + l.config().toMap());
    }
    for (Map.Entry<String, String> e : identity.entrySet()) {
      String had = l.checkpoint().meta().getOrDefault(e.getKey(), BEFORE_KEY.get(e.getKey()));
      if (!e.getValue().equals(had)) {
        throw new InvalidInputException(
            modelDir
                + " holds a checkpoint trained with "
                + e.getKey().substring(9)
                + "="
                + had
                + ", this run has "
                + e.getValue()
                + ": use a fresh model dir");
      }
    }
    String precision = l.checkpoint().meta().get(TypedTrainOptions.PRECISION_KEY);
    if (precision != null && !identity.containsKey(TypedTrainOptions.PRECISION_KEY)) {
      throw new InvalidInputException(
          modelDir
              + " holds a checkpoint trained with precision="
              + precision
              + ", this run has "
              + io.fanout.tensor.MatmulPrecision.FP32.id()
              + ": use a fresh model dir");
    }
    for (String k : TypedHotReuse.IDENTITY_KEYS) {
      String had = l.checkpoint().meta().get(k);
      if (had != null && !identity.containsKey(k)) {
        throw new InvalidInputException(
            modelDir
                + " holds a checkpoint trained with "
                + k.substring(9)
                + "="
                + had
                + ", this run has none: use a fresh model dir");
      }
    }
    TypedCheckpoint.restore(modelDir, l, model, adam);
    Map<String, String> meta = l.checkpoint().meta();
    return new Progress(
        l.checkpoint().epochs(),
        Double.parseDouble(meta.getOrDefault(bestKey, "-1")),
        Integer.parseInt(meta.getOrDefault("best.epoch", "-1")));
  }

  /**
   * The epoch (0-based, exclusive) a run resumed at {@code resumed} trains up to: {@code epochs},
   * or none further when the run it resumes had stopped early under {@code stop} (said on {@code
   * log}, with {@code score} the validation score it goes by).
   */
  static int end(Progress resumed, int epochs, EarlyStop stop, PrintStream log, String score) {
    int start = resumed.startEpoch();
    if (stop.endsEarlyAfter(start, resumed.bestEpoch(), epochs)) {
      if (log != null) {
        log.println(EarlyStop.line(start, resumed.bestEpoch(), stop.patience(), score));
      }
      return start;
    }
    return Math.max(start, epochs);
  }

  /**
   * Ends epoch {@code epochs} (1-based) in {@code modelDir}: {@code best.bin} when {@code
   * improved}, then {@code checkpoint.bin}, then the {@code metrics.jsonl} line of its loss and
   * validation scores ({@code val}, in order, each written as {@code val_<key>}; null: none), with
   * {@code "stopped_early":true} and the {@code best_epoch} when {@code stopped} ({@link
   * io.fanout.train.EarlyStop} ends training after it).
   */
  static void endEpoch(
      Path modelDir,
      TypedModel model,
      Adam adam,
      Map<String, String> identity,
      String bestKey,
      Progress progress,
      boolean improved,
      boolean stopped,
      int epochs,
      double loss,
      Map<String, ?> val) {
    Map<String, String> meta = new LinkedHashMap<>(identity);
    meta.put(bestKey, Double.toString(progress.best()));
    meta.put("best.epoch", Integer.toString(progress.bestEpoch()));
    if (improved) {
      TypedCheckpoint.write(modelDir, Checkpoint.BEST, model, adam, epochs, meta);
    }
    TypedCheckpoint.write(modelDir, Checkpoint.FILE, model, adam, epochs, meta);
    appendMetrics(modelDir, epochs, loss, val, stopped ? progress : null);
  }

  private static void appendMetrics(
      Path modelDir, int epoch, double loss, Map<String, ?> val, Progress stoppedAt) {
    StringBuilder line =
        new StringBuilder(
            String.format(Locale.ROOT, "{\"epoch\":%d,\"loss\":%s", epoch, json(loss)));
    if (val != null) {
      for (Map.Entry<String, ?> e : val.entrySet()) {
        Object v = e.getValue();
        line.append(",\"val_")
            .append(e.getKey())
            .append("\":")
            .append(v instanceof Double x ? json(x) : String.valueOf(v));
      }
    }
    if (stoppedAt != null) {
      line.append(",\"stopped_early\":true,\"best_epoch\":").append(stoppedAt.bestEpoch());
    }
    line.append("}\n");
    try {
      Files.writeString(
          modelDir.resolve(ModelDirFiles.METRICS),
          line,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException ex) {
      throw new UncheckedIOException("cannot append to metrics.jsonl in " + modelDir, ex);
    }
  }

  private static String json(double v) {
    return Double.isFinite(v) ? Double.toString(v) : "null";
  }
}
