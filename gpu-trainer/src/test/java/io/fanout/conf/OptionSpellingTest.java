package io.fanout.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.options.FanoutKeys;
import io.fanout.conf.options.OptionClasses;
import io.fanout.conf.options.SampleOptions;
import io.fanout.conf.options.TrainCommandOptions;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Spark's conventions for option names: any case and word separator in the API, and session keys
 * scoped to one stage ({@code spark.fanout.train.epochs}) ahead of the shared ones.
 */
class OptionSpellingTest {
  @Test
  void everySpellingOfANameIsThatName() {
    for (String given :
        List.of("batch-size", "batchSize", "BATCH-SIZE", "batch_size", "BatchSize")) {
      assertThat(OptionSpelling.canonical(given, SampleOptions.ALL))
          .as(given)
          .isEqualTo("batch-size");
    }
    assertThat(OptionSpelling.canonical("batch-sizes", SampleOptions.ALL)).isEqualTo("batch-sizes");
  }

  /** Two names of one option list that fold alike would make a spelling ambiguous. */
  @Test
  void noTwoNamesOfACommandFoldAlike() throws IllegalAccessException {
    for (Class<?> c : OptionClasses.ALL) {
      for (Field f : c.getFields()) {
        if (Modifier.isStatic(f.getModifiers()) && List.class.isAssignableFrom(f.getType())) {
          Map<String, String> seen = new HashMap<>();
          for (Object o : (List<?>) f.get(null)) {
            if (o instanceof OptionDef<?> d) {
              String before = seen.put(OptionSpelling.fold(d.name()), d.name());
              assertThat(before == null || before.equals(d.name()))
                  .as(c.getSimpleName() + "." + f.getName() + ": " + before + " and " + d.name())
                  .isTrue();
            }
          }
        }
      }
    }
  }

  @Test
  void aStageKeyComesBeforeTheSharedKey() {
    Map<String, String> session =
        Map.of("spark.fanout.epochs", "7", "spark.fanout.train.epochs", "3");
    FanoutConf train =
        new FanoutConf(
            "train", TrainCommandOptions.TRAIN, Map.of(), k -> Optional.ofNullable(session.get(k)));
    FanoutConf sample =
        new FanoutConf(
            "sample", SampleOptions.ALL, Map.of(), k -> Optional.ofNullable(session.get(k)));
    assertThat(train.get(TrainCommandOptions.EPOCHS)).isEqualTo(3);
    assertThat(sample.get(SampleOptions.EPOCHS)).isEqualTo(7);
    assertThat(train.given(TrainCommandOptions.HIDDEN)).isFalse();
    FanoutConf explicit =
        new FanoutConf(
            "train",
            TrainCommandOptions.TRAIN,
            Map.of("epochs", "5"),
            k -> Optional.ofNullable(session.get(k)));
    assertThat(explicit.get(TrainCommandOptions.EPOCHS)).isEqualTo(5);
    assertThatThrownBy(
            () ->
                new FanoutConf(
                    "train",
                    TrainCommandOptions.TRAIN,
                    Map.of(),
                    k -> Optional.ofNullable(Map.of("spark.fanout.train.epochs", "x").get(k))))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageStartingWith("option 'epochs' of train has value 'x'");
  }

  @Test
  void stageKeysAreKnownAndTheirTyposRefused() {
    assertThatCode(
            () ->
                FanoutKeys.refuseUnknown(
                    List.of(
                        "spark.fanout.train.epochs",
                        "spark.fanout.sample.epochs",
                        "spark.fanout.infer.output",
                        "spark.fanout.prepare.undirected")))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> FanoutKeys.refuseUnknown(List.of("spark.fanout.train.epohcs")))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessage(
            "unknown configuration key 'spark.fanout.train.epohcs'; did you mean"
                + " spark.fanout.train.epochs?");
    // An option of another stage: sample has no lr.
    assertThatThrownBy(() -> FanoutKeys.refuseUnknown(List.of("spark.fanout.sample.lr")))
        .hasMessageStartingWith("unknown configuration key 'spark.fanout.sample.lr'");
  }
}
