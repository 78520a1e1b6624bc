package io.fanout.spark.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.InvalidInputException;
import org.junit.jupiter.api.Test;

class GpuAssignmentTest {
  @Test
  void aTaskRunsOnTheGpuSparkAssignedIt() {
    assertThat(GpuAssignment.ordinal("cuda", new String[] {"3"}, 4)).isEqualTo(3);
    assertThat(GpuAssignment.ordinal("auto", new String[] {" 1", "2"}, 4)).isEqualTo(1);
  }

  @Test
  void withoutGpuSchedulingTheBackendPicksItsDefault() {
    assertThat(GpuAssignment.ordinal("cuda", null, 0)).isEqualTo(-1);
    assertThat(GpuAssignment.ordinal("auto", new String[0], 0)).isEqualTo(-1);
  }

  @Test
  void cpuBackendsIgnoreGpus() {
    assertThat(GpuAssignment.ordinal("cpu", new String[] {"2"}, 4)).isEqualTo(-1);
    assertThat(GpuAssignment.ordinal("cpu-checked", null, 4)).isEqualTo(-1);
  }

  @Test
  void executorGpusWithoutATaskShareAreRefusedRatherThanAllOnDeviceZero() {
    assertThatThrownBy(() -> GpuAssignment.ordinal("cuda", new String[0], 2))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("spark.task.resource.gpu.amount");
  }

  @Test
  void anAddressThatIsNoOrdinalIsRefused() {
    assertThatThrownBy(() -> GpuAssignment.ordinal("auto", new String[] {"GPU-4f2a"}, 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("'GPU-4f2a'")
        .hasMessageContaining("device ordinal");
  }
}
