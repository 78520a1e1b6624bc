package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.InvalidInputException;
import io.fanout.tensor.CpuBackend;
import org.junit.jupiter.api.Test;

/** The Spark-free bench-train entry point's argument parsing. */
class TrainBenchmarkMainTest {
  @Test
  void readsOptionValuePairs() {
    assertThat(TrainBenchmarkMain.parse(new String[] {"--backend", "cuda", "--batches", "5"}))
        .containsEntry("backend", "cuda")
        .containsEntry("batches", "5")
        .hasSize(2);
  }

  @Test
  void unknownOrDanglingOptionsAreInputErrors() {
    assertThatThrownBy(() -> TrainBenchmarkMain.parse(new String[] {"--verify-rounds", "1"}))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("got '--verify-rounds'");
    assertThatThrownBy(() -> TrainBenchmarkMain.parse(new String[] {"--backend"}))
        .isInstanceOf(InvalidInputException.class);
  }

  @Test
  void featureAccessIsGatherOrZeroCopyAndZeroCopyNeedsCuda() {
    assertThat(TrainBenchmarkMain.parse(new String[] {"--feature-access", "zero-copy"}))
        .containsEntry("feature-access", "zero-copy");
    assertThatThrownBy(() -> settings("mapped"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--feature-access must be gather or zero-copy, got 'mapped'");
    assertThatThrownBy(() -> TrainBenchmark.run(settings("zero-copy"), new CpuBackend()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("zero-copy is measured on the CUDA backend only");
  }

  private static TrainBenchmark.Settings settings(String access) {
    return new TrainBenchmark.Settings(100, 400, 8, 8, new int[] {2}, 16, 1, 0, 1, 1, 8, 0, access);
  }
}
