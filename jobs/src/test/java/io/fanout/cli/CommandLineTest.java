package io.fanout.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.jobs.sample.SampleCommand;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Command-line parsing: a repeated option is refused, not silently overridden. */
class CommandLineTest {
  @Test
  void aRepeatedOptionIsRefused() {
    for (List<String> args :
        List.of(
            List.of("--fanouts", "10,5", "--fanouts", "3"),
            List.of("--fanouts=10,5", "--fanouts", "3"),
            List.of("--overwrite", "--overwrite", "false"),
            List.of("--master", "local[1]", "--master", "local[2]"))) {
      assertThatThrownBy(() -> CommandLine.parse(new SampleCommand(), args))
          .as(String.join(" ", args))
          .isInstanceOf(FanoutConfigException.class)
          .hasMessageContaining("given twice")
          .hasMessageContaining("--" + args.get(0).substring(2).split("=")[0]);
    }
  }

  @Test
  void confMayRepeatAndOtherOptionsParseOnce() {
    CommandLine cl =
        CommandLine.parse(
            new SampleCommand(),
            List.of("--conf", "a=1", "--conf", "b=2", "--fanouts", "10,5", "--overwrite"));
    assertThat(cl.sparkConf).containsEntry("a", "1").containsEntry("b", "2");
    assertThat(cl.options).containsEntry("fanouts", "10,5").containsEntry("overwrite", "true");
  }

  @Test
  void theCliExitsTwoWithOneLineForARepeatedOption() {
    CliRun.Result r = CliRun.cli("sample", "--fanouts", "10,5", "--fanouts", "3");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--fanouts is given twice");
    assertThat(r.err()).doesNotContain("\tat ");
  }
}
