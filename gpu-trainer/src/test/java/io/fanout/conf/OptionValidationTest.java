package io.fanout.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.options.EvaluateOptions;
import io.fanout.conf.options.FanoutKeys;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Every given option is validated when the options are resolved: numbers are finite, values are not
 * empty, an option the mode ignores is refused, and an unknown {@code spark.fanout.*} key is
 * refused naming the closest known one.
 */
class OptionValidationTest {
  private static final OptionDef<Double> LR = OptionDef.doubleValue("lr", 0.01, "rate");
  private static final OptionDef<String> OUTPUT = OptionDef.string("output", null, "where");
  private static final OptionDef<String> NOTE = OptionDef.string("note", "", "optional");

  @Test
  void nonFiniteNumbersAreRefusedNamingOptionAndValue() {
    for (String v : List.of("Infinity", "-Infinity", "NaN", "1e300")) {
      assertThatThrownBy(() -> FanoutConf.of("train", List.of(LR), Map.of("lr", v)))
          .as(v)
          .isInstanceOf(FanoutConfigException.class)
          .hasMessageContaining("option 'lr' of train has value '" + v + "'")
          .hasMessageNotContaining("\n");
    }
    assertThat(FanoutConf.of("train", List.of(LR), Map.of("lr", "1e-3")).get(LR)).isEqualTo(1e-3);
  }

  @Test
  void aValueIsTheDefaultByWhatItParsesTo() {
    assertThat(LR.isDefault(FanoutConf.of("train", List.of(LR), Map.of("lr", "1e-2")).get(LR)))
        .isTrue();
    assertThat(LR.isDefault(FanoutConf.of("train", List.of(LR), Map.of("lr", "0.02")).get(LR)))
        .isFalse();
    assertThat(OUTPUT.isDefault(null)).as("a required option has no default").isFalse();
  }

  @Test
  void aBadValueIsRefusedWhenResolvedNotWhenRead() {
    assertThatThrownBy(
            () ->
                new FanoutConf(
                    "train",
                    List.of(LR),
                    Map.of(),
                    k -> k.equals("spark.fanout.lr") ? Optional.of("fast") : Optional.empty()))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("option 'lr' of train has value 'fast'");
  }

  @Test
  void anEmptyValueIsRefusedUnlessEmptyIsTheDefault() {
    assertThatThrownBy(() -> FanoutConf.of("sample", List.of(OUTPUT), Map.of("output", "")))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessage("option 'output' of sample is empty; give it a value");
    assertThatThrownBy(() -> FanoutConf.of("sample", List.of(OUTPUT), Map.of("output", "  ")))
        .isInstanceOf(FanoutConfigException.class);
    assertThatCode(() -> FanoutConf.of("x", List.of(NOTE), Map.of("note", "")))
        .doesNotThrowAnyException();
  }

  @Test
  void fanoutsUnderFullNeighborInferenceAreRefused() {
    FanoutConf full =
        FanoutConf.of(
            "evaluate", EvaluateOptions.ALL, Map.of("neighbors", "full", "fanouts", "3,3"));
    assertThatThrownBy(() -> EvaluateOptions.fanouts(full))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageStartingWith("option 'fanouts' of evaluate is ignored: --neighbors full");
    FanoutConf fullDefault =
        FanoutConf.of("evaluate", EvaluateOptions.ALL, Map.of("neighbors", "full", "fanouts", ""));
    assertThat(EvaluateOptions.fanouts(fullDefault)).isNull();
    FanoutConf sampled =
        FanoutConf.of(
            "evaluate", EvaluateOptions.ALL, Map.of("neighbors", "sampled", "fanouts", "3,3"));
    assertThat(EvaluateOptions.fanouts(sampled)).containsExactly(3, 3);
  }

  @Test
  void unknownFanoutKeysAreRefusedWithTheClosestName() {
    assertThatThrownBy(() -> FanoutKeys.refuseUnknown(List.of("spark.fanout.hiden")))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessage(
            "unknown configuration key 'spark.fanout.hiden'; did you mean spark.fanout.hidden?");
    assertThatCode(
            () ->
                FanoutKeys.refuseUnknown(
                    List.of(
                        "spark.fanout.hidden",
                        "spark.fanout.lr",
                        "spark.fanout.hooks.free-space-probe",
                        "spark.fanout.watch.id",
                        "spark.executor.memory")))
        .doesNotThrowAnyException();
  }

  @Test
  void closestNameIsTheFewestEdits() {
    assertThat(ClosestName.distance("hiden", "hidden")).isEqualTo(1);
    assertThat(ClosestName.distance("", "abc")).isEqualTo(3);
    assertThat(ClosestName.distance("kitten", "sitting")).isEqualTo(3);
    assertThat(ClosestName.of("epohcs", List.of("lr", "epochs", "hidden"))).isEqualTo("epochs");
    assertThat(ClosestName.of("x", List.of())).isNull();
  }
}
