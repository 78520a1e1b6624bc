package io.fanout.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.jobs.sample.SampleCommand;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Command-line parsing: a repeated option is refused, not silently overridden; a master Spark
 * cannot parse is refused before Spark starts.
 */
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
  void anOptionFollowedByAnotherOptionIsMissingItsValue() {
    assertThatThrownBy(
            () ->
                CommandLine.parse(new SampleCommand(), List.of("--batch-size", "--fanouts", "5,5")))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessage("option --batch-size needs a value, got the option --fanouts instead");
    CommandLine negative =
        CommandLine.parse(new SampleCommand(), List.of("--seed", "-5", "--batch-size=--x"));
    assertThat(negative.options).containsEntry("seed", "-5").containsEntry("batch-size", "--x");
    assertThat(negative.positional).isEmpty();
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

  @Test
  void aBogusMasterExitsTwoWithOneLineBeforeSparkStarts() {
    CliRun.Result r =
        CliRun.cli("prepare", "--master", "bogus://x", "--vertices", "v", "--edges", "e");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err())
        .isEqualTo(
            "fanout prepare: error: --master 'bogus://x' is not a Spark master URL; expected "
                + SparkMasters.ACCEPTED
                + "\n");
    CliRun.Result conf = CliRun.cli("prepare", "--conf", "spark.master=locale[2]");
    assertThat(conf.code()).isEqualTo(2);
    assertThat(conf.err()).contains("--conf spark.master 'locale[2]' is not a Spark master URL");
  }

  @Test
  void sparksOwnMasterFormsAreAccepted() {
    for (String m :
        List.of(
            "local",
            "local[2]",
            "local[*]",
            "local[2,3]",
            "local-cluster[2,1,1024]",
            "spark://host:7077")) {
      SparkMasters.check(m, "--master");
    }
    for (String m : List.of("bogus://x", "local[two]", "locl", "")) {
      assertThatThrownBy(() -> SparkMasters.check(m, "--master"))
          .as(m)
          .isInstanceOf(FanoutConfigException.class)
          .hasMessageContaining("'" + m + "'");
    }
  }

  /** Task resources on a local master: refused, since Spark would wait forever at 0 tasks. */
  @Test
  void taskResourcesOnALocalMasterAreRefused() {
    java.util.Map<String, String> gpu = java.util.Map.of("spark.task.resource.gpu.amount", "1");
    for (String m : java.util.Arrays.asList(null, "local", "local[4]", "local[2,3]")) {
      assertThatThrownBy(() -> SparkMasters.checkTaskResources(m, gpu))
          .as(String.valueOf(m))
          .isInstanceOf(FanoutConfigException.class)
          .hasMessageContaining("spark.task.resource.gpu.amount")
          .hasMessageContaining("local scheduler offers no task resources");
    }
    SparkMasters.checkTaskResources("local-cluster[2,1,1024]", gpu);
    SparkMasters.checkTaskResources("spark://host:7077", gpu);
    SparkMasters.checkTaskResources("local[4]", java.util.Map.of("spark.executor.memory", "1g"));
  }
}
