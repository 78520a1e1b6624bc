package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.tensor.Backend;
import io.fanout.tensor.CpuBackend;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

class FeatureAccessChoiceTest {
  private static final long GIB = 1L << 30;

  @Test
  void anExplicitModeStaysAsAsked() {
    Backend gpu = device(80 * GIB);
    for (FeatureAccessMode m :
        new FeatureAccessMode[] {
          FeatureAccessMode.GATHER, FeatureAccessMode.ZERO_COPY, FeatureAccessMode.DEVICE
        }) {
      assertThat(FeatureAccessChoice.resolve(m, gpu, 1000 * GIB, "inline features", true).mode())
          .isEqualTo(m);
    }
  }

  @Test
  void autoOnTheCpuGathersAsBefore() {
    try (CpuBackend cpu = new CpuBackend()) {
      FeatureAccessChoice.Choice c =
          FeatureAccessChoice.resolve(FeatureAccessMode.AUTO, cpu, GIB, null, false);
      assertThat(c.mode()).isEqualTo(FeatureAccessMode.GATHER);
      assertThat(c.why()).contains("host memory");
    }
  }

  @Test
  void autoKeepsTheRowsOnTheDeviceWhileTheyTakeAtMostTheShare() {
    Backend gpu = device(10 * GIB);
    assertThat(FeatureAccessChoice.resolve(FeatureAccessMode.AUTO, gpu, 5 * GIB, null, false))
        .satisfies(
            c -> {
              assertThat(c.mode()).isEqualTo(FeatureAccessMode.DEVICE);
              assertThat(c.why()).contains("5.00 GiB").contains("10.00 GiB");
            });
    assertThat(
            FeatureAccessChoice.resolve(FeatureAccessMode.AUTO, gpu, 5 * GIB + 1, null, false)
                .mode())
        .isEqualTo(FeatureAccessMode.ZERO_COPY);
  }

  @Test
  void autoGathersWhenRowsCannotBeReadInPlaceAndReadsACacheInPlace() {
    Backend gpu = device(80 * GIB);
    FeatureAccessChoice.Choice refused =
        FeatureAccessChoice.resolve(
            FeatureAccessMode.AUTO, gpu, GIB, "cannot apply --feature-norm l2", false);
    assertThat(refused.mode()).isEqualTo(FeatureAccessMode.GATHER);
    assertThat(refused.why()).contains("--feature-norm l2");
    assertThat(FeatureAccessChoice.resolve(FeatureAccessMode.AUTO, gpu, GIB, null, true).mode())
        .isEqualTo(FeatureAccessMode.ZERO_COPY);
  }

  @Test
  void theModesSpellAndKnowWhetherTheyReadInPlace() {
    assertThat(FeatureAccessMode.parse(" Device ")).isEqualTo(FeatureAccessMode.DEVICE);
    assertThat(FeatureAccessMode.parse("auto")).isEqualTo(FeatureAccessMode.AUTO);
    assertThat(FeatureAccessMode.DEVICE.readsInPlace()).isTrue();
    assertThat(FeatureAccessMode.ZERO_COPY.readsInPlace()).isTrue();
    assertThat(FeatureAccessMode.AUTO.readsInPlace()).isFalse();
    assertThat(FeatureAccessMode.GATHER.readsInPlace()).isFalse();
    assertThat(Defaults.FEATURE_ACCESS).isEqualTo(FeatureAccessMode.AUTO);
  }

  /** A backend that only reports a device with {@code free} bytes free. */
  private static Backend device(long free) {
    return (Backend)
        Proxy.newProxyInstance(
            Backend.class.getClassLoader(),
            new Class<?>[] {Backend.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "freeDeviceBytes" -> free;
                  case "name" -> "fake-device";
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }
}
