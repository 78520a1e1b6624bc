package io.fanout.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.options.SampleMode;
import io.fanout.conf.options.SampleOptions;
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
    FanoutConf c = FanoutConf.of("sample", List.of(SampleOptions.MODE), Map.of("mode", "x"));
    assertThatThrownBy(() -> c.get(SampleOptions.MODE))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessage(
            "option 'mode' of sample has value 'x': expected one of replicated|partitioned");
  }
}
