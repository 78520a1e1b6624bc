package io.fanout.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.spark.internal.JsonLine;
import io.fanout.spark.train.TrainOutcome;
import io.fanout.train.Checkpoint;
import io.fanout.train.ModelDirFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/** What {@code train} did: the model dir, the model, and the run's epochs, loss and timing. */
public final class TrainResult {
  private final SparkSession spark;
  private final Path modelDir;
  private final String model;
  private final int layers;
  private final int epochsRun;
  private final double finalLoss;
  private final double trainSeconds;
  private final double waitSeconds;
  private final int workers;
  private final int stageAttempt;
  private boolean skipped;
  private final int bestEpoch; // metrics.jsonl's best_epoch of a run that stopped early, else -1

  /**
   * @param finalLoss the last epoch's mean training loss; NaN when no epoch ran
   * @param stageAttempt the attempt of the Spark stage that finished the run (0 unless retried)
   */
  public TrainResult(
      SparkSession spark,
      Path modelDir,
      String model,
      int layers,
      int epochsRun,
      double finalLoss,
      double trainSeconds,
      double waitSeconds,
      int workers,
      int stageAttempt) {
    this.spark = spark;
    this.modelDir = modelDir;
    this.model = model;
    this.layers = layers;
    this.epochsRun = epochsRun;
    this.finalLoss = finalLoss;
    this.trainSeconds = trainSeconds;
    this.waitSeconds = waitSeconds;
    this.workers = workers;
    this.stageAttempt = stageAttempt;
    this.bestEpoch = stoppedAt(lastMetrics(modelDir));
  }

  /**
   * The earlier result a skipped {@code train} returns: what the model dir's checkpoint and {@code
   * metrics.jsonl} say, with {@link #skipped()} true and no epoch run by this call.
   */
  static TrainResult earlier(SparkSession spark, Path modelDir, Checkpoint ck, int workers) {
    Map<String, String> meta = ck.meta();
    TrainResult r =
        new TrainResult(
            spark,
            modelDir,
            meta.getOrDefault("model.kind", ""),
            Integer.parseInt(meta.getOrDefault("model.layers", "0")),
            0,
            lastLoss(modelDir),
            0,
            0,
            workers,
            0);
    r.skipped = true;
    return r;
  }

  /** The last epoch's loss in the model dir's {@code metrics.jsonl}; NaN when none. */
  private static double lastLoss(Path modelDir) {
    JsonNode loss = lastMetrics(modelDir).get("loss");
    return loss == null || !loss.isNumber() ? Double.NaN : loss.asDouble();
  }

  /**
   * The {@code best_epoch} of a {@code metrics.jsonl} line that says {@code "stopped_early":true},
   * else -1.
   */
  private static int stoppedAt(JsonNode line) {
    JsonNode stopped = line.get("stopped_early");
    JsonNode best = line.get("best_epoch");
    return stopped != null && stopped.asBoolean() && best != null && best.isIntegralNumber()
        ? best.asInt()
        : -1;
  }

  /** The last line of the model dir's {@code metrics.jsonl}; an empty object when none. */
  private static JsonNode lastMetrics(Path modelDir) {
    ObjectMapper json = new ObjectMapper();
    Path file = modelDir.resolve(ModelDirFiles.METRICS);
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
      for (int i = lines.size() - 1; i >= 0; i--) {
        if (!lines.get(i).isBlank()) {
          JsonNode n = json.readTree(lines.get(i));
          return n != null && n.isObject() ? n : json.createObjectNode();
        }
      }
    } catch (IOException e) {
      return json.createObjectNode();
    }
    return json.createObjectNode();
  }

  /**
   * True when this call trained nothing because the model dir already held the same, complete run
   * (or any run, with {@code mode("ignore")}): the result is the earlier run's, its {@link
   * #finalLoss()} that run's last epoch's.
   */
  public boolean skipped() {
    return skipped;
  }

  /** The result of what a {@code train} job did. */
  static TrainResult of(SparkSession spark, TrainOutcome o) {
    return new TrainResult(
        spark,
        o.modelDir(),
        o.model(),
        o.layers(),
        o.epochsRun(),
        o.finalLoss(),
        o.trainSeconds(),
        o.waitSeconds(),
        o.workers(),
        o.stageAttempt());
  }

  /** The model directory: {@code checkpoint.bin} and {@code metrics.jsonl}. */
  public Path modelDir() {
    return modelDir;
  }

  /** The model kind, {@code sage} or {@code gcn}. */
  public String model() {
    return model;
  }

  public int layers() {
    return layers;
  }

  /** Epochs this call trained (0 when resuming a finished run, or {@link #skipped()}). */
  public int epochsRun() {
    return epochsRun;
  }

  /** The last epoch's mean training loss; NaN when no epoch ran. */
  public double finalLoss() {
    return finalLoss;
  }

  /** Seconds spent in training epochs. */
  public double trainSeconds() {
    return trainSeconds;
  }

  /** The share of {@link #trainSeconds()} spent waiting for batches. */
  public double dataWaitFraction() {
    return trainSeconds > 0 ? waitSeconds / trainSeconds : 0;
  }

  /**
   * Whether the run ended before {@code --epochs} because {@code --early-stop} epochs brought no
   * better validation score: its last {@code metrics.jsonl} line says {@code "stopped_early":true}
   * (true also for a call that trained nothing more of a run that had stopped so).
   */
  public boolean stoppedEarly() {
    return bestEpoch >= 0;
  }

  /**
   * The epoch of the best validation score of a run that {@link #stoppedEarly()}, numbered as the
   * {@code epoch} of {@code metrics.jsonl} numbers it (its {@code best_epoch}); -1 otherwise.
   */
  public int bestEpoch() {
    return bestEpoch;
  }

  /** Trainer replicas (1 unless data-parallel). */
  public int workers() {
    return workers;
  }

  /** The attempt of the barrier stage that finished a data-parallel run (0 unless retried). */
  public int stageAttempt() {
    return stageAttempt;
  }

  /**
   * The result as the one JSON line {@code bin/fanout train} prints; data-parallel runs add {@code
   * workers} and {@code stage_attempt}, a run that {@link #stoppedEarly()} {@code
   * "stopped_early":true} and its {@code best_epoch}, as its last {@code metrics.jsonl} line.
   */
  public String toJson() {
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            Locale.ROOT,
            "{\"model_dir\":%s,\"model\":%s,\"layers\":%d,\"epochs_run\":%d,"
                + "\"final_loss\":%s,\"train_seconds\":%.3f,\"data_wait_fraction\":%.4f",
            JsonLine.of(modelDir.toString()),
            JsonLine.of(model),
            layers,
            epochsRun,
            Double.isNaN(finalLoss) ? "null" : String.format(Locale.ROOT, "%.6f", finalLoss),
            trainSeconds,
            dataWaitFraction()));
    if (workers > 1) {
      sb.append(
          String.format(
              Locale.ROOT, ",\"workers\":%d,\"stage_attempt\":%d", workers, stageAttempt));
    }
    if (stoppedEarly()) {
      sb.append(",\"stopped_early\":true,\"best_epoch\":").append(bestEpoch);
    }
    if (skipped) {
      sb.append(",\"skipped\":true");
    }
    return sb.append('}').toString();
  }

  /**
   * The model dir's {@code metrics.jsonl} as a DataFrame, one row per epoch in file order, read now
   * (a snapshot): a column per field in the order they first appear ({@code epoch}, {@code loss},
   * {@code train_accuracy}, {@code val_accuracy} and {@code val_loss} with validation, {@code lr},
   * ...); integral fields are {@code bigint}, other numbers {@code double}, a field an epoch lacks
   * is null.
   */
  public Dataset<Row> metrics() {
    Path file = modelDir.resolve(ModelDirFiles.METRICS);
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      lines = List.of();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    ObjectMapper json = new ObjectMapper();
    List<JsonNode> records = new ArrayList<>();
    Map<String, DataType> columns = new LinkedHashMap<>();
    for (String line : lines) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode n;
      try {
        n = json.readTree(line);
      } catch (IOException e) {
        throw new io.fanout.store.InvalidInputException(
            file + ": line '" + line + "' is not a JSON object: " + e.getMessage());
      }
      records.add(n);
      for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> f = it.next();
        if (f.getValue().isNull()) {
          columns.putIfAbsent(f.getKey(), DataTypes.NullType);
          continue;
        }
        columns.merge(f.getKey(), typeOf(f.getValue()), TrainResult::wider);
      }
    }
    StructType schema = new StructType();
    for (Map.Entry<String, DataType> c : columns.entrySet()) {
      if (c.getValue().equals(DataTypes.NullType)) {
        c.setValue(DataTypes.StringType);
      }
      schema = schema.add(c.getKey(), c.getValue(), true);
    }
    List<Row> rows = new ArrayList<>(records.size());
    for (JsonNode n : records) {
      Object[] values = new Object[columns.size()];
      int i = 0;
      for (Map.Entry<String, DataType> c : columns.entrySet()) {
        JsonNode v = n.get(c.getKey());
        values[i++] = v == null || v.isNull() ? null : valueOf(v, c.getValue());
      }
      rows.add(RowFactory.create(values));
    }
    return spark.createDataFrame(rows, schema);
  }

  private static DataType typeOf(JsonNode v) {
    if (v.isIntegralNumber()) {
      return DataTypes.LongType;
    }
    if (v.isNumber()) {
      return DataTypes.DoubleType;
    }
    if (v.isBoolean()) {
      return DataTypes.BooleanType;
    }
    return DataTypes.StringType;
  }

  private static DataType wider(DataType a, DataType b) {
    if (a.equals(b) || b.equals(DataTypes.NullType)) {
      return a;
    }
    if (a.equals(DataTypes.NullType)) {
      return b;
    }
    boolean numbers =
        (a.equals(DataTypes.LongType) || a.equals(DataTypes.DoubleType))
            && (b.equals(DataTypes.LongType) || b.equals(DataTypes.DoubleType));
    return numbers ? DataTypes.DoubleType : DataTypes.StringType;
  }

  private static Object valueOf(JsonNode v, DataType t) {
    if (t.equals(DataTypes.LongType)) {
      return v.asLong();
    }
    if (t.equals(DataTypes.DoubleType)) {
      return v.asDouble();
    }
    if (t.equals(DataTypes.BooleanType)) {
      return v.asBoolean();
    }
    return v.isTextual() ? v.asText() : v.toString();
  }
}
