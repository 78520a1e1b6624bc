package io.fanout.tensor.cuda;

import org.junit.jupiter.api.Assumptions;

/** Shared by the {@code @Tag("gpu")} tests: skip, with the reason printed, without a device. */
public final class GpuTests {
  private GpuTests() {}

  public static void assumeDevice() {
    String why = CudaBackendProvider.probe();
    if (!why.isEmpty()) {
      System.out.println("skipping GPU test: " + why);
    }
    Assumptions.assumeTrue(why.isEmpty(), () -> "skipping GPU test: " + why);
  }
}
