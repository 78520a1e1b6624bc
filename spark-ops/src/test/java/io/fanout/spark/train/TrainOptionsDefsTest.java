package io.fanout.spark.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.options.TrainCommandOptions;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Training options out of range are refused, naming the option, before any work starts. */
class TrainOptionsDefsTest {
  private static FanoutConf conf(String name, String value) {
    Map<String, String> m = new HashMap<>();
    m.put("graph", "g.store");
    m.put("shards", "g.shards");
    m.put("model-dir", "g.model");
    if (name != null) {
      m.put(name, value);
    }
    return FanoutConf.of("train", TrainCommandOptions.TRAIN, m);
  }

  @Test
  void theDefaultsMakeAValidRun() {
    assertThat(TrainOptionsDefs.spec(conf(null, null)).optimization().epochs()).isPositive();
    assertThat(TrainOptionsDefs.spec(conf(null, null)).optimization().earlyStop()).isZero();
    assertThat(TrainOptionsDefs.spec(conf("early-stop", "3")).optimization().earlyStop())
        .isEqualTo(3);
  }

  @Test
  void theEdgeResidualOfTypedHgnIsRefusedOnOneTypeModelsUnlessAtItsDefault() {
    // a replayed option map (a rerun, a Spark ML stage) carries it at its default
    assertThat(TrainOptionsDefs.spec(conf("attn-residual", "0.0")).optimization().epochs())
        .isPositive();
    assertThatThrownBy(() -> TrainOptionsDefs.spec(conf("attn-residual", "0.05")))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("--attn-residual")
        .hasMessageContaining("typed stores only");
    assertThatThrownBy(() -> TrainOptionsDefs.spec(conf("input-width", "64")))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessageContaining("train --input-width is built for --model hgn on typed stores only");
  }

  @Test
  void outOfRangeValuesAreRefusedByName() {
    String[][] bad = {
      {"epochs", "0", "1 or more"},
      {"hidden", "0", "1 or more"},
      {"layers", "-1", "0 or more"},
      {"loader-threads", "0", "1 or more"},
      {"prefetch", "0", "1 or more"},
      {"log-every", "-5", "0 or more"},
      {"early-stop", "-1", "0 or more"},
      {"dropout", "1", "0 <= dropout < 1"},
      {"dropout", "-0.1", "0 <= dropout < 1"},
      {"lr", "0", "positive"},
      {"lr", "NaN", "finite"},
      {"weight-decay", "-1e-4", "0 or more"},
    };
    for (String[] b : bad) {
      assertThatThrownBy(() -> TrainOptionsDefs.spec(conf(b[0], b[1])))
          .as(b[0] + "=" + b[1])
          .isInstanceOf(FanoutConfigException.class)
          .hasMessageContaining("'" + b[0] + "'")
          .hasMessageContaining(b[1])
          .hasMessageContaining(b[2]);
    }
  }
}
