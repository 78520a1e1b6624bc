package io.fanout.spark.ml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.conf.options.SampleOptions;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.sample.Fanouts;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.Params;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The Params of {@link GnnClassifier} and {@link GnnClassificationModel}: their defaults are the
 * command line's option definitions (a default that drifts from its option fails here), and bad
 * values are refused when set, in the Params' own names.
 */
class GnnParamsTest {
  /** Each Param that a command-line option backs, with that option. */
  static final Map<String, OptionDef<?>> BACKED_BY =
      Map.ofEntries(
          Map.entry("idCol", PrepareOptions.ID_COLUMN),
          Map.entry("featuresCol", PrepareOptions.FEATURES_COLUMN),
          Map.entry("labelCol", PrepareOptions.LABEL_COLUMN),
          Map.entry("splitCol", PrepareOptions.SPLIT_COLUMN),
          Map.entry("srcCol", PrepareOptions.SRC_COLUMN),
          Map.entry("dstCol", PrepareOptions.DST_COLUMN),
          Map.entry("undirected", PrepareOptions.UNDIRECTED),
          Map.entry("dedupe", PrepareOptions.DEDUPE),
          Map.entry("selfLoops", PrepareOptions.SELF_LOOPS),
          Map.entry("fanouts", SampleOptions.FANOUTS),
          Map.entry("batchSize", SampleOptions.BATCH_SIZE),
          Map.entry("sampleEpochs", SampleOptions.EPOCHS),
          Map.entry("modelType", TrainCommandOptions.MODEL),
          Map.entry("heads", TrainCommandOptions.HEADS),
          Map.entry("attnSlope", TrainCommandOptions.ATTN_SLOPE),
          Map.entry("attnDropout", TrainCommandOptions.ATTN_DROPOUT),
          Map.entry("hidden", TrainCommandOptions.HIDDEN),
          Map.entry("dropout", TrainCommandOptions.DROPOUT),
          Map.entry("activation", TrainCommandOptions.ACTIVATION),
          Map.entry("featureNorm", TrainCommandOptions.FEATURE_NORM),
          Map.entry("learningRate", TrainCommandOptions.LR),
          Map.entry("weightDecay", TrainCommandOptions.WEIGHT_DECAY),
          Map.entry("epochs", TrainCommandOptions.EPOCHS),
          Map.entry("seed", TrainCommandOptions.SEED),
          Map.entry("workDir", SharedOptions.WORK_DIR),
          Map.entry("edgeSplit", PrepareOptions.EDGE_SPLIT),
          Map.entry("negatives", SampleOptions.NEGATIVES),
          Map.entry("numNegatives", SampleOptions.NUM_NEGATIVES),
          Map.entry("decoder", TrainCommandOptions.DECODER));

  /** The Params of the ML side only, with no option behind them. */
  static final Set<String> ML_ONLY =
      Set.of("predictionCol", "probabilityCol", "embeddingCol", "scoreCol");

  /** The Params of the link stages only. */
  static final Set<String> LINK_ONLY =
      Set.of("edgeSplit", "negatives", "numNegatives", "decoder", "scoreCol");

  /** The Params of the classification stages only. */
  static final Set<String> CLASSIFIER_ONLY =
      Set.of("labelCol", "splitCol", "predictionCol", "probabilityCol", "embeddingCol");

  @Test
  void everyDefaultIsItsOptionsDefault() {
    GnnClassificationModel model =
        GnnClassificationModel.loaded("m", Path.of("store"), Path.of("model"));
    GnnLinkModel links = GnnLinkModel.loaded("l", Path.of("store"), Path.of("model"));
    for (Params owner : List.of(new GnnClassifier(), model, new GnnLinkPredictor(), links)) {
      boolean link = owner instanceof GnnLinkParams;
      Set<String> names = new TreeSet<>();
      for (Param<?> p : owner.params()) {
        names.add(p.name());
        if (ML_ONLY.contains(p.name())) {
          continue;
        }
        OptionDef<?> def = BACKED_BY.get(p.name());
        assertThat(def).as("the option behind Param " + p.name()).isNotNull();
        assertThat(render(owner.getDefault(p).get()))
            .as(owner.getClass().getSimpleName() + " default of " + p.name())
            .isEqualTo(optionDefault(def));
      }
      Set<String> expected = new TreeSet<>(BACKED_BY.keySet());
      expected.addAll(ML_ONLY);
      expected.removeAll(link ? CLASSIFIER_ONLY : LINK_ONLY);
      assertThat(names).as(owner.getClass().getSimpleName()).isEqualTo(expected);
    }
  }

  @Test
  void outputColumnsDefaultToSparkMlNames() {
    GnnClassifier gnn = new GnnClassifier();
    assertThat(gnn.getPredictionCol()).isEqualTo("prediction");
    assertThat(gnn.getProbabilityCol()).isEqualTo("probability");
    assertThat(gnn.getEmbeddingCol()).isEmpty();
  }

  /** A default as text: numbers by value, fanouts as the option spells them. */
  static String render(Object v) {
    return v instanceof int[] f ? Fanouts.format(f) : String.valueOf(v);
  }

  /** The option's default as the command line parses it, rendered like {@link #render}. */
  static String optionDefault(OptionDef<?> def) {
    Object v = FanoutConf.of("test", List.of(def), Map.of()).get(def);
    return v instanceof Enum<?> ? def.defaultValue() : String.valueOf(v);
  }

  @Test
  void badValuesAreRefusedInTheParamsTerms() {
    GnnClassifier g = new GnnClassifier();
    refused(() -> g.setHidden(0), "GnnClassifier param hidden has value 0; expected 1 or more");
    refused(() -> g.setEpochs(-1), "GnnClassifier param epochs has value -1; expected 1 or more");
    refused(
        () -> g.setBatchSize(0), "GnnClassifier param batchSize has value 0; expected 1 or more");
    refused(
        () -> g.setDropout(1.0),
        "GnnClassifier param dropout has value 1.0; expected 0 <= value < 1");
    refused(
        () -> g.setLearningRate(0),
        "GnnClassifier param learningRate has value 0.0; expected a finite number above 0");
    refused(
        () -> g.setWeightDecay(Double.NaN),
        "GnnClassifier param weightDecay has value NaN; expected a finite number of 0 or more");
    refused(
        () -> g.setFanouts(25, 0),
        "GnnClassifier param fanouts has value [25, 0]; fanout 2 is 0; expected a positive"
            + " integer or -1 (all)");
    refused(
        () -> g.setFanouts(),
        "GnnClassifier param fanouts has value []; expected comma-separated fanouts such as"
            + " 15,10,5");
    refused(
        () -> g.setIdCol(" "), "GnnClassifier param idCol has value ' '; expected a column name");
    assertThatThrownBy(() -> g.setModelType("gin"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("GnnClassifier param modelType has value 'gin'; ")
        .hasMessageContaining("sage")
        .hasMessageContaining("gat");
    refused(
        () -> g.setModelType("rgcn"),
        "GnnClassifier param modelType has value 'rgcn'; expected sage, gcn or gat (rgcn, hsage"
            + " and hgn train typed graphs: TypedGnnClassifier)");
    assertThatThrownBy(() -> g.setSelfLoops("remove"))
        .hasMessageStartingWith("GnnClassifier param selfLoops has value 'remove'; ")
        .hasMessageContaining("drop");
    refused(() -> g.setHeads(0), "GnnClassifier param heads has value 0; expected 1 or more");
    refused(
        () -> g.setAttnSlope(-0.1),
        "GnnClassifier param attnSlope has value -0.1; expected 0 <= value < 1");
    refused(
        () -> g.setAttnDropout(1.0),
        "GnnClassifier param attnDropout has value 1.0; expected 0 <= value < 1");
    assertThatThrownBy(() -> g.setActivation("tanh-ish"))
        .hasMessageStartingWith("GnnClassifier param activation has value 'tanh-ish'; ");
    // A ParamMap, as fit(dataset, paramMap) and the tuning classes take, is checked the same way.
    refused(
        () -> new ParamMap().put(g.hidden(), 0),
        "GnnClassifier param hidden has value 0; expected 1 or more");
    // Nothing was set by the refused calls.
    assertThat(g.getHidden())
        .isEqualTo(Integer.parseInt(TrainCommandOptions.HIDDEN.defaultValue()));
    assertThat(g.isSet(g.modelType())).isFalse();
    GnnLinkPredictor l = new GnnLinkPredictor();
    refused(
        () -> l.setEdgeSplit("0.8,0.1"),
        "GnnLinkPredictor param edgeSplit has value '0.8,0.1'; expected TRAIN,VAL,TEST fractions"
            + " >= 0 summing to 1, TRAIN above 0");
    refused(
        () -> l.setNumNegatives(0),
        "GnnLinkPredictor param numNegatives has value 0; expected 1 or more");
    assertThatThrownBy(() -> l.setDecoder("bilinear"))
        .hasMessageStartingWith("GnnLinkPredictor param decoder has value 'bilinear'; ")
        .hasMessageContaining("mlp");
    assertThatThrownBy(() -> l.setNegatives("hard"))
        .hasMessageStartingWith("GnnLinkPredictor param negatives has value 'hard'; ");
    assertThat(l.setEdgeSplit("0.7,0.1,0.2").getEdgeSplit()).isEqualTo("0.7,0.1,0.2");
  }

  static void refused(Executable call, String message) {
    assertThatThrownBy(call::execute)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message)
        .message()
        .doesNotContain("--");
  }

  @Test
  void schemaChecksNameTheParam() {
    StructType vertices =
        new StructType()
            .add("id", DataTypes.LongType)
            .add("features", DataTypes.createArrayType(DataTypes.FloatType))
            .add("label", DataTypes.StringType);
    GnnClassifier g = new GnnClassifier();
    assertThatThrownBy(() -> g.transformSchema(vertices))
        .hasMessage(
            "GnnClassifier param labelCol names column 'label' of type STRING; expected a numeric"
                + " label (an integer class, -1 = unlabeled)");
    StructType withPrediction =
        new StructType()
            .add("id", DataTypes.LongType)
            .add("features", DataTypes.createArrayType(DataTypes.DoubleType))
            .add("label", DataTypes.IntegerType)
            .add("prediction", DataTypes.DoubleType);
    assertThatThrownBy(() -> g.transformSchema(withPrediction))
        .hasMessage(
            "GnnClassifier param predictionCol names output column 'prediction', which the input"
                + " already has; set another name");
    StructType out = g.setPredictionCol("gnn").transformSchema(withPrediction);
    assertThat(out.fieldNames())
        .containsExactly("id", "features", "label", "prediction", "gnn", "probability");
    GnnClassificationModel m = GnnClassificationModel.loaded("m", Path.of("s"), Path.of("m"));
    assertThatThrownBy(() -> m.transformSchema(new StructType().add("key", DataTypes.LongType)))
        .hasMessage(
            "GnnClassificationModel param idCol names column 'id', which the vertices DataFrame"
                + " lacks; it has key");
    assertThat(m.setEmbeddingCol("e").transformSchema(vertices).fieldNames())
        .containsExactly("id", "features", "label", "prediction", "probability", "e");
  }
}
