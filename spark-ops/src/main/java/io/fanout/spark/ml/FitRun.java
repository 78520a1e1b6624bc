package io.fanout.spark.ml;

import io.fanout.conf.options.PrepareOptions;
import io.fanout.conf.options.SampleOptions;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.nn.ModelKind;
import io.fanout.sample.Fanouts;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.spark.PrepareResult;
import io.fanout.spark.SampleResult;
import io.fanout.store.InvalidInputException;
import io.fanout.train.Checkpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.spark.ml.param.Param;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * One fit of a GNN estimator: prepare, sample and train through {@link Fanout}, into a work folder
 * the estimator owns ({@code store/}, {@code train-shards/}, {@code model/}).
 *
 * <p>prepare and sample skip identical requests and replace outputs of other ones. Training resumes
 * the model only when both skipped and the previous fit recorded the same training options ({@value
 * #RECORD}); otherwise the old model directory is removed and training starts afresh.
 */
final class FitRun {
  /** The training options of the fit that wrote {@code model/}, one {@code name=value} a line. */
  static final String RECORD = "train-options.txt";

  /** Where a fit's store and model directory are. */
  record Outputs(Path store, Path model) {}

  private final Path work;

  FitRun(Path work) {
    this.work = work;
  }

  /**
   * Runs the three stages on the tables {@code prepare} reads, with the options of each (from
   * {@link #prepareOptions}, {@link #sampleOptions} and {@link #trainOptions} and the stage's own).
   */
  Outputs run(
      Dataset<Row> vertices,
      Dataset<Row> edges,
      Map<String, String> prepareOptions,
      Map<String, String> sampleOptions,
      Map<String, String> train) {
    return run(
        vertices.sparkSession(),
        f -> f.prepare(vertices, edges),
        prepareOptions,
        sampleOptions,
        train);
  }

  /**
   * As the other, with the graph {@code graph} gives: a {@code prepare} of its tables, without
   * output or options, e.g. a typed graph's {@code prepare().vertices(...).edges(...)}.
   */
  Outputs run(
      SparkSession spark,
      Function<Fanout, PrepareAction> graph,
      Map<String, String> prepareOptions,
      Map<String, String> sampleOptions,
      Map<String, String> train) {
    Fanout fanout = Fanout.get(spark);
    Path store = work.resolve("store");
    Path shards = work.resolve("train-shards");
    Path model = work.resolve("model");
    PrepareResult prepared =
        replacing(
            store,
            overwrite ->
                graph
                    .apply(fanout)
                    .options(prepareOptions)
                    .option(PrepareOptions.OVERWRITE.name(), Boolean.toString(overwrite))
                    .output(store.toString())
                    .execute());
    SampleResult sampled =
        replacing(
            shards,
            overwrite ->
                fanout
                    .sample(store.toString())
                    .options(sampleOptions)
                    .overwrite(overwrite)
                    .output(shards.toString())
                    .progress(null)
                    .execute());
    Path record = work.resolve(RECORD);
    boolean same =
        prepared.skipped()
            && sampled.skipped()
            && Files.exists(model.resolve(Checkpoint.FILE))
            && render(train).equals(read(record));
    if (!same) {
      deleteTree(record);
      deleteTree(model);
    }
    fanout
        .train(store.toString(), shards.toString())
        .options(train)
        .modelDir(model.toString())
        .resume(same)
        .execute();
    write(record, render(train));
    return new Outputs(store, model);
  }

  /**
   * Runs {@code stage} without overwriting, so that an identical request skips; when {@code output}
   * already existed and that fails (it holds another request, or the input is bad), runs it again
   * replacing the output, which fails again on bad input.
   */
  private static <R> R replacing(Path output, Function<Boolean, R> stage) {
    if (!Files.exists(output)) {
      return stage.apply(false);
    }
    try {
      return stage.apply(false);
    } catch (InvalidInputException e) {
      return stage.apply(true);
    }
  }

  /** The options of {@code prepare} every GNN stage sets from its Params. */
  static Map<String, String> prepareOptions(GnnGraphParams p) {
    Map<String, String> o = new TreeMap<>();
    o.put(PrepareOptions.ID_COLUMN.name(), p.getIdCol());
    o.put(PrepareOptions.FEATURES_COLUMN.name(), p.getFeaturesCol());
    o.put(PrepareOptions.SRC_COLUMN.name(), p.getSrcCol());
    o.put(PrepareOptions.DST_COLUMN.name(), p.getDstCol());
    o.put(PrepareOptions.UNDIRECTED.name(), Boolean.toString(p.getUndirected()));
    o.put(PrepareOptions.DEDUPE.name(), Boolean.toString(p.getDedupe()));
    o.put(PrepareOptions.SELF_LOOPS.name(), p.getSelfLoops());
    return o;
  }

  /** The options of {@code prepare} of a node classifier's graph: with labels and splits. */
  static Map<String, String> nodePrepareOptions(GnnClassifierParams p) {
    Map<String, String> o = prepareOptions(p);
    o.put(PrepareOptions.LABEL_COLUMN.name(), p.getLabelCol());
    o.put(PrepareOptions.SPLIT_COLUMN.name(), p.getSplitCol());
    return o;
  }

  /** The options of {@code sample} every GNN stage sets from its Params. */
  static Map<String, String> sampleOptions(GnnGraphParams p) {
    Map<String, String> o = new TreeMap<>();
    o.put(SampleOptions.FANOUTS.name(), Fanouts.format(p.getFanouts()));
    o.put(SampleOptions.BATCH_SIZE.name(), Integer.toString(p.getBatchSize()));
    o.put(SampleOptions.EPOCHS.name(), Integer.toString(p.getSampleEpochs()));
    o.put(SampleOptions.SEED.name(), Long.toString(p.getSeed()));
    return o;
  }

  /**
   * The options of {@code prepare} of a typed graph for node classification: the target's label
   * column, or its labels column when multi-label.
   */
  static Map<String, String> typedPrepareOptions(TypedGnnParams p) {
    Map<String, String> o = new TreeMap<>();
    o.put(PrepareOptions.ID_COLUMN.name(), p.getIdCol());
    o.put(PrepareOptions.FEATURES_COLUMN.name(), p.getFeaturesCol());
    if (p.multiLabel()) {
      o.put(PrepareOptions.LABELS_COLUMN.name(), p.getLabelsCol());
    } else {
      o.put(PrepareOptions.LABEL_COLUMN.name(), p.getLabelCol());
    }
    o.put(PrepareOptions.SPLIT_COLUMN.name(), p.getSplitCol());
    o.put(PrepareOptions.SRC_COLUMN.name(), p.getSrcCol());
    o.put(PrepareOptions.DST_COLUMN.name(), p.getDstCol());
    o.put(PrepareOptions.ADD_REVERSE.name(), Boolean.toString(p.getAddReverse()));
    return o;
  }

  /** The options of {@code sample} of a typed graph: seeds of the target type's train split. */
  static Map<String, String> typedSampleOptions(TypedGnnParams p) {
    Map<String, String> o = new TreeMap<>();
    o.put(SampleOptions.FANOUTS.name(), p.getFanouts());
    o.put(SampleOptions.SEED_TYPE.name(), p.getTargetType());
    o.put(SampleOptions.SPLIT.name(), VertexColumns.TRAIN);
    o.put(SampleOptions.BATCH_SIZE.name(), Integer.toString(p.getBatchSize()));
    o.put(SampleOptions.EPOCHS.name(), Integer.toString(p.getSampleEpochs()));
    o.put(SampleOptions.SEED.name(), Long.toString(p.getSeed()));
    return o;
  }

  /**
   * The options of {@code train} of a typed graph: with rgcn's {@code bases} and hgn's attention
   * settings for those models only.
   *
   * @throws IllegalArgumentException naming the Param when a setting of another model is set to a
   *     value other than its default (as {@code train} refuses it)
   */
  static Map<String, String> typedTrainOptions(TypedGnnParams p) {
    Map<String, String> o = stageTrainOptions(p);
    o.put(TrainCommandOptions.LEARNED_EMBEDDINGS.name(), p.getLearnedEmbeddings());
    o.put(TrainCommandOptions.EARLY_STOP.name(), Integer.toString(p.getEarlyStop()));
    ModelKind model = ModelKind.parse(p.getModelType());
    if (model == ModelKind.RGCN) {
      o.put(TrainCommandOptions.BASES.name(), Integer.toString(p.getBases()));
    } else {
      refuseUnread(p, model, ModelKind.RGCN, p.bases());
    }
    if (model == ModelKind.HGN) {
      o.putAll(attention(p));
      o.put(TrainCommandOptions.ATTN_RESIDUAL.name(), Double.toString(p.getAttnResidual()));
      o.put(TrainCommandOptions.INPUT_WIDTH.name(), Integer.toString(p.getInputWidth()));
    } else {
      refuseUnread(
          p,
          model,
          ModelKind.HGN,
          p.heads(),
          p.attnSlope(),
          p.attnDropout(),
          p.attnResidual(),
          p.inputWidth());
    }
    return o;
  }

  /** Refuses a Param of {@code reader}'s only, set to another value than its default. */
  private static void refuseUnread(
      GnnStageParams p, ModelKind model, ModelKind reader, Param<?>... params) {
    for (Param<?> param : params) {
      Object value = p.getOrDefault(param);
      Object unset = p.getDefault(param).get();
      if (!value.equals(unset)) {
        throw new IllegalArgumentException(
            p.getClass().getSimpleName()
                + " param "
                + param.name()
                + " has value "
                + value
                + ", which modelType "
                + model.id()
                + " does not read ("
                + param.name()
                + " is "
                + reader.id()
                + "'s); leave it at "
                + unset
                + " or set modelType "
                + reader.id());
      }
    }
  }

  /** The options of {@code train} every GNN stage of a one-type graph sets from its Params. */
  static Map<String, String> trainOptions(GnnGraphParams p) {
    Map<String, String> o = stageTrainOptions(p);
    o.put(TrainCommandOptions.ACTIVATION.name(), p.getActivation());
    o.putAll(attention(p));
    if (ModelKind.parse(p.getModelType()) == ModelKind.GAT && p.getHidden() % p.getHeads() != 0) {
      throw new IllegalArgumentException(
          p.getClass().getSimpleName()
              + " param heads has value "
              + p.getHeads()
              + ", which does not divide hidden "
              + p.getHidden()
              + " (gat splits the hidden width between its heads)");
    }
    return o;
  }

  /** The attention options of {@code train}: gat's, or on a typed graph hgn's. */
  private static Map<String, String> attention(GnnStageParams p) {
    return Map.of(
        TrainCommandOptions.HEADS.name(),
        Integer.toString(p.getHeads()),
        TrainCommandOptions.ATTN_SLOPE.name(),
        Double.toString(p.getAttnSlope()),
        TrainCommandOptions.ATTN_DROPOUT.name(),
        Double.toString(p.getAttnDropout()));
  }

  /** The options of {@code train} every GNN stage, one-type or typed, sets from its Params. */
  static Map<String, String> stageTrainOptions(GnnStageParams p) {
    Map<String, String> o = new TreeMap<>();
    o.put(TrainCommandOptions.MODEL.name(), p.getModelType());
    o.put(TrainCommandOptions.HIDDEN.name(), Integer.toString(p.getHidden()));
    o.put(TrainCommandOptions.DROPOUT.name(), Double.toString(p.getDropout()));
    o.put(TrainCommandOptions.FEATURE_NORM.name(), p.getFeatureNorm());
    o.put(TrainCommandOptions.LR.name(), Double.toString(p.getLearningRate()));
    o.put(TrainCommandOptions.WEIGHT_DECAY.name(), Double.toString(p.getWeightDecay()));
    o.put(TrainCommandOptions.EPOCHS.name(), Integer.toString(p.getEpochs()));
    o.put(TrainCommandOptions.SEED.name(), Long.toString(p.getSeed()));
    o.put(TrainCommandOptions.LOG_EVERY.name(), "0");
    return o;
  }

  private static String render(Map<String, String> options) {
    StringBuilder b = new StringBuilder();
    options.forEach((k, v) -> b.append(k).append('=').append(v).append('\n'));
    return b.toString();
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path file, String text) {
    try {
      Files.writeString(file, text, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> all = Files.walk(root)) {
      for (Path f : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(f);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + root, e);
    }
  }
}
