package io.fanout.spark.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureCacheIo;
import io.fanout.features.RowCacheSizing;
import io.fanout.train.typed.TypedCacheSettings;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The feature cache options of typed training: built (not refused as typed-only gaps), read with
 * their one-type meaning and checks, and refused with one line where the one-type path refuses.
 */
class TypedTrainJobCacheOptionsTest {
  private static FanoutConf conf(String... pairs) {
    Map<String, String> m = new HashMap<>();
    m.put("graph", "g.store");
    m.put("shards", "g.shards");
    m.put("model-dir", "g.model");
    m.put("model", "rgcn");
    for (int i = 0; i < pairs.length; i += 2) {
      m.put(pairs[i], pairs[i + 1]);
    }
    return FanoutConf.of("train", TrainCommandOptions.TRAIN, m);
  }

  @Test
  void theCacheOptionsAreBuiltForTypedStoresWithTheirOneTypeMeaning() {
    FanoutConf c =
        conf(
            "feature-cache", "belady",
            "feature-cache-bytes", "4096",
            "feature-cache-io", "direct",
            "feature-cache-window", "auto");
    TypedTrainJob.refuseNotBuilt(c);
    assertThat(TypedTrainJob.cache(c))
        .isEqualTo(
            new TypedCacheSettings(
                CachePolicy.BELADY, 4096, FeatureCacheIo.DIRECT, RowCacheSizing.AUTO_WINDOW));
    assertThat(TypedTrainJob.cache(conf("feature-cache", "none")).bytes()).isZero();
    assertThat(TypedTrainJob.cache(conf())).isNull();
  }

  @Test
  void combinationsTheOneTypePathRefusesAreRefusedWithOneLine() {
    String[][] bad = {
      {
        "only --feature-cache belady plans",
        "feature-cache",
        "lru",
        "feature-cache-bytes",
        "64",
        "feature-cache-window",
        "5"
      },
      {"no --feature-cache policy is given", "feature-cache-io", "direct"},
      {"no --feature-cache policy is given", "feature-cache-bytes", "100"},
      {"'feature-cache-bytes' is 0", "feature-cache", "belady"},
      {"expected one of belady, lru, none", "feature-cache", "fifo"},
    };
    for (String[] b : bad) {
      FanoutConf c = conf(java.util.Arrays.copyOfRange(b, 1, b.length));
      assertThatThrownBy(() -> TypedTrainJob.cache(c))
          .as(b[0])
          .isInstanceOf(FanoutConfigException.class)
          .hasMessageContaining(b[0])
          .hasMessageNotContaining("\n");
    }
  }
}
