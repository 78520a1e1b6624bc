package io.fanout.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.options.BenchFeaturesOptions;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.conf.options.QuantizeOptions;
import io.fanout.conf.options.SampleMode;
import io.fanout.conf.options.SampleOptions;
import io.fanout.graph.PartitionerKind;
import io.fanout.store.StoreFeatureEncoding;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Enum options: parsed by the enum's parse, listed in help as a choice is. */
class OptionEnumTest {
  @Test
  void parsesTheSpellingsAndListsThemInHelp() {
    OptionDef<SampleMode> mode = SampleOptions.MODE;
    assertThat(mode.defaultValue()).isEqualTo("replicated");
    assertThat(mode.doc()).endsWith(" (replicated|partitioned)");
    FanoutConf c = FanoutConf.of("sample", List.of(mode), Map.of("mode", " Partitioned"));
    assertThat(c.get(mode)).isSameAs(SampleMode.PARTITIONED);
    assertThat(FanoutConf.of("sample", List.of(mode), Map.of()).get(mode))
        .isSameAs(SampleMode.REPLICATED);
  }

  @Test
  void aBadValueNamesTheAllowedOnesAsAChoiceDoes() {
    // Refused when the options are resolved, before any of them is read.
    assertThatThrownBy(
            () -> FanoutConf.of("sample", List.of(SampleOptions.MODE), Map.of("mode", "x")))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessage(
            "option 'mode' of sample has value 'x': expected one of replicated|partitioned");
  }

  @Test
  void aDomainEnumParsesAndFailsAsAChoiceDoes() {
    FanoutConf c =
        FanoutConf.of(
            "prepare",
            List.of(QuantizeOptions.FEATURE_ENCODING, PrepareOptions.PARTITIONER),
            Map.of("feature-encoding", " INT8"));
    assertThat(c.get(QuantizeOptions.FEATURE_ENCODING)).isSameAs(StoreFeatureEncoding.INT8);
    assertThat(QuantizeOptions.FEATURE_ENCODING.doc()).endsWith(" (f32|f16|int8|int4|pq)");
    assertThat(PrepareOptions.PARTITIONER.defaultValue()).isEqualTo(PartitionerKind.HASH.id());
    assertThatThrownBy(
            () ->
                FanoutConf.of(
                    "prepare", List.of(PrepareOptions.PARTITIONER), Map.of("partitioner", "metis")))
        .hasMessage(
            "option 'partitioner' of prepare has value 'metis': expected one of"
                + " hash|range|multilevel");
    assertThat(BenchFeaturesOptions.ENCODING.doc()).endsWith(" (f32|int8|int4|pq)");
    assertThatThrownBy(
            () ->
                FanoutConf.of(
                    "bench-features",
                    List.of(BenchFeaturesOptions.ENCODING),
                    Map.of("encoding", "f16")))
        .hasMessageEndingWith("expected one of f32|int8|int4|pq");
  }
}
