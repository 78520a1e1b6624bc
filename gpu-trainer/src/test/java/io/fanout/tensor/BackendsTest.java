package io.fanout.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class BackendsTest {
  /** A stand-in GPU provider: its backend is a checking CPU backend that records the ordinal. */
  static final class FakeGpu implements BackendProvider {
    final boolean usable;
    int createdOn = -2;

    FakeGpu(boolean usable) {
      this.usable = usable;
    }

    @Override
    public String name() {
      return "cuda";
    }

    @Override
    public int priority() {
      return 10;
    }

    @Override
    public boolean available() {
      return usable;
    }

    @Override
    public String unavailableReason() {
      return "no CUDA device visible";
    }

    @Override
    public Backend create() {
      return create(-1);
    }

    @Override
    public Backend create(int ordinal) {
      createdOn = ordinal;
      return new CheckingBackend(new CpuBackend());
    }
  }

  private static List<BackendProvider> installed(BackendProvider gpu) {
    return List.of(new CpuBackendProvider(), new CheckingBackendProvider(), gpu);
  }

  private static List<String> logged(Runnable r) {
    Logger log = Logger.getLogger(Backends.class.getName());
    List<String> lines = new ArrayList<>();
    Handler h =
        new Handler() {
          @Override
          public void publish(LogRecord rec) {
            lines.add(rec.getMessage());
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    log.addHandler(h);
    try {
      r.run();
    } finally {
      log.removeHandler(h);
    }
    return lines;
  }

  @Test
  void autoTakesAUsableGpuOnTheGivenDevice() {
    FakeGpu gpu = new FakeGpu(true);
    Backend b = Backends.select("auto", 3, installed(gpu));
    assertThat(b).isInstanceOf(CheckingBackend.class);
    assertThat(gpu.createdOn).isEqualTo(3);
  }

  @Test
  void autoFallsBackToTheCpuWithOneLineSayingWhy() {
    FakeGpu gpu = new FakeGpu(false);
    Backend[] b = new Backend[1];
    List<String> lines = logged(() -> b[0] = Backends.select("auto", -1, installed(gpu)));
    assertThat(b[0]).isInstanceOf(CpuBackend.class);
    assertThat(gpu.createdOn).isEqualTo(-2);
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0)).contains("auto chose the CPU").contains("no CUDA device visible");
    List<String> none =
        logged(() -> Backends.select("auto", -1, List.of(new CpuBackendProvider())));
    assertThat(none).singleElement().asString().contains("no GPU backend is installed");
  }

  @Test
  void namingAnUnusableOrMissingBackendIsAnInputError() {
    assertThatThrownBy(() -> Backends.select("cuda", -1, installed(new FakeGpu(false))))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("backend 'cuda' cannot run here: no CUDA device visible")
        .hasMessageContaining("--backend cpu");
    assertThatThrownBy(() -> Backends.select("cuda", -1, List.of(new CpuBackendProvider())))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("no backend named 'cuda' is installed (installed: cpu)");
  }

  @Test
  void namedCpuBackendsAreAlwaysThere() {
    assertThat(Backends.select("cpu", 1, Backends.providers())).isInstanceOf(CpuBackend.class);
    assertThat(Backends.select("cpu-checked", -1, Backends.providers()))
        .isInstanceOf(CheckingBackend.class);
  }
}
