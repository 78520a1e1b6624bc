package io.fanout.spark.ml;

import static io.fanout.spark.ml.GnnParamsTest.optionDefault;
import static io.fanout.spark.ml.GnnParamsTest.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.OptionDef;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.conf.options.SampleOptions;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.nn.typed.HgnSettings;
import io.fanout.train.Defaults;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.ml.param.Param;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.param.Params;
import org.junit.jupiter.api.Test;

/**
 * The Params of {@link TypedGnnClassifier} and {@link TypedGnnClassificationModel}: the shared ones
 * are the one-type stages' (same names and defaults), the typed ones take their defaults from their
 * options ({@code modelType} from {@link Defaults#TYPED_MODEL}, hgn's attention settings from
 * {@link HgnSettings#DEFAULT}, as {@code train} takes them for {@code --model hgn}), and bad values
 * are refused when set, in the Params' own names.
 */
class TypedGnnParamsTest {
  /** The typed Params an option backs, beside the shared ones of {@link GnnParamsTest}. */
  static final Map<String, OptionDef<?>> TYPED_BACKED_BY =
      Map.of(
          "targetType", SampleOptions.SEED_TYPE,
          "fanouts", SampleOptions.FANOUTS,
          "addReverse", PrepareOptions.ADD_REVERSE,
          "learnedEmbeddings", TrainCommandOptions.LEARNED_EMBEDDINGS,
          "labelsCol", PrepareOptions.LABELS_COLUMN,
          "bases", TrainCommandOptions.BASES,
          "attnResidual", TrainCommandOptions.ATTN_RESIDUAL,
          "inputWidth", TrainCommandOptions.INPUT_WIDTH,
          "earlyStop", TrainCommandOptions.EARLY_STOP);

  /**
   * The typed Params whose default is {@code train}'s for a typed model, not their option's: the
   * architecture, and hgn's attention settings (the options' defaults are gat's).
   */
  static final Map<String, Object> TRAIN_DEFAULTS =
      Map.of(
          "modelType", Defaults.TYPED_MODEL.id(),
          "heads", HgnSettings.DEFAULT.heads(),
          "attnSlope", HgnSettings.DEFAULT.slope(),
          "attnDropout", HgnSettings.DEFAULT.attnDropout());

  /** The one-type Params a typed graph has no use for. */
  static final Set<String> ONE_TYPE_ONLY =
      Set.of("undirected", "dedupe", "selfLoops", "activation");

  @Test
  void everyDefaultIsItsOptionsDefault() {
    Map<String, OptionDef<?>> backed = new HashMap<>(GnnParamsTest.BACKED_BY);
    backed.putAll(TYPED_BACKED_BY);
    backed.keySet().removeAll(GnnParamsTest.LINK_ONLY);
    backed.keySet().removeAll(ONE_TYPE_ONLY);
    TypedGnnClassificationModel model =
        TypedGnnClassificationModel.loaded("m", Path.of("store"), Path.of("model"));
    for (Params owner : List.of(new TypedGnnClassifier(), model)) {
      Set<String> names = new TreeSet<>();
      for (Param<?> p : owner.params()) {
        names.add(p.name());
        Object value = owner.getDefault(p).get();
        Object own = TRAIN_DEFAULTS.get(p.name());
        if (own != null) {
          assertThat(value instanceof Double d ? (Object) d.floatValue() : value)
              .as(owner.getClass().getSimpleName() + " default of " + p.name())
              .isEqualTo(own);
        } else if (!GnnParamsTest.ML_ONLY.contains(p.name())) {
          assertThat(String.valueOf(value))
              .as(owner.getClass().getSimpleName() + " default of " + p.name())
              .isEqualTo(optionDefault(backed.get(p.name())));
        }
      }
      Set<String> expected = new TreeSet<>(backed.keySet());
      expected.addAll(GnnParamsTest.ML_ONLY);
      expected.remove("scoreCol");
      assertThat(names).as(owner.getClass().getSimpleName()).isEqualTo(expected);
    }
  }

  @Test
  void badValuesAreRefusedInTheParamsTerms() {
    TypedGnnClassifier g = new TypedGnnClassifier();
    refused(
        () -> g.setModelType("sage"),
        "TypedGnnClassifier param modelType has value 'sage'; expected rgcn, hsage or hgn (sage,"
            + " gcn and gat train one-type graphs: GnnClassifier)");
    assertThatThrownBy(() -> g.setModelType("hgt"))
        .hasMessageStartingWith("TypedGnnClassifier param modelType has value 'hgt'; ")
        .hasMessageContaining("hsage");
    refused(
        () -> g.setFanouts("writes=10,5;cites"),
        "TypedGnnClassifier param fanouts has value 'writes=10,5;cites'; entry 'cites' has no"
            + " '='; expected 'relation=10,5' or '*=10,5'");
    refused(
        () -> g.setFanouts("writes=10,-2"),
        "TypedGnnClassifier param fanouts has value 'writes=10,-2'; relation 'writes': fanout 2"
            + " is -2; expected an integer >= 0 or -1 (all)");
    refused(
        () -> g.setFanouts(""),
        "TypedGnnClassifier param fanouts has value ''; expected fanouts such as"
            + " 'rel=10,5;*=10,5' or '10,5' for every relation");
    refused(
        () -> g.setHidden(0), "TypedGnnClassifier param hidden has value 0; expected 1 or more");
    assertThatThrownBy(() -> g.setLearnedEmbeddings("some"))
        .hasMessageStartingWith("TypedGnnClassifier param learnedEmbeddings has value 'some'; ")
        .hasMessageContaining("auto");
    refused(
        () -> g.setBases(-1), "TypedGnnClassifier param bases has value -1; expected 0 or more");
    refused(
        () -> g.setAttnResidual(1.0),
        "TypedGnnClassifier param attnResidual has value 1.0; expected 0 <= value < 1");
    refused(() -> g.setHeads(0), "TypedGnnClassifier param heads has value 0; expected 1 or more");
    refused(
        () -> g.setEarlyStop(-1),
        "TypedGnnClassifier param earlyStop has value -1; expected 0 or more");
    refused(
        () -> g.setInputWidth(-1),
        "TypedGnnClassifier param inputWidth has value -1; expected 0 or more");
    refused(
        () -> new ParamMap().put(g.dropout(), 1.5),
        "TypedGnnClassifier param dropout has value 1.5; expected 0 <= value < 1");
    assertThat(g.isSet(g.modelType())).isFalse();
    assertThat(g.isSet(g.fanouts())).isFalse();
    assertThat(g.setFanouts("writes=10,5;*=-1,0").getFanouts()).isEqualTo("writes=10,5;*=-1,0");
  }
}
