package io.fanout.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The registry finds the jobs module's commands through {@link CommandProvider}, in help order. */
class CommandsTest {
  @Test
  void jobsCommandsComeInHelpOrderWithoutTheBenchModule() {
    assertThat(Commands.all())
        .extracting(Command::name)
        .startsWith(
            "prepare",
            "quantize",
            "inspect",
            "generate",
            "sample",
            "train",
            "evaluate",
            "infer",
            "quickstart")
        .noneMatch(n -> n.startsWith("bench-"));
  }

  @Test
  void findNamesACommandOrNothing() {
    assertThat(Commands.find("train")).isNotNull();
    assertThat(Commands.find("train").name()).isEqualTo("train");
    assertThat(Commands.find("no-such-command")).isNull();
  }
}
