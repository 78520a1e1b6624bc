package io.fanout.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.InvalidInputException;
import org.junit.jupiter.api.Test;

class MatmulPrecisionTest {
  @Test
  void spellings() {
    assertThat(MatmulPrecision.parse(" TF32 ")).isEqualTo(MatmulPrecision.TF32);
    assertThat(MatmulPrecision.parse("bf16")).isEqualTo(MatmulPrecision.BF16);
    assertThatThrownBy(() -> MatmulPrecision.parse("fp16"))
        .hasMessage("expected one of fp32|tf32|bf16");
  }

  @Test
  void theCpuBackendsComputeFp32AndSaySoForTheOthers() {
    try (CpuBackend cpu = new CpuBackend();
        CheckingBackend checked = new CheckingBackend(new CpuBackend())) {
      for (Backend be : new Backend[] {cpu, checked}) {
        be.matmulPrecision(MatmulPrecision.FP32);
        assertThatThrownBy(() -> be.matmulPrecision(MatmulPrecision.BF16))
            .isInstanceOf(InvalidInputException.class)
            .hasMessageContaining("--precision bf16")
            .hasMessageContaining("cuda")
            .hasMessageContaining("--precision fp32");
      }
    }
  }
}
