package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.fanout.tensor.BackendProvider;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The provider is found through ServiceLoader and answers cleanly whether a device exists. */
class CudaBackendProviderTest {
  @Test
  void registeredAndReportsAvailabilityWithoutThrowing() {
    BackendProvider cuda = null;
    for (BackendProvider p : ServiceLoader.load(BackendProvider.class)) {
      if (p.name().equals("cuda")) {
        cuda = p;
      }
    }
    assertThat(cuda).as("cuda provider registered in META-INF/services").isNotNull();
    BackendProvider p = cuda;
    assertThatCode(p::available).doesNotThrowAnyException();
    assertThat(p.priority()).isGreaterThan(0);
    if (p.available()) {
      assertThat(p.unavailableReason()).isEmpty();
    } else {
      System.out.println("cuda provider: " + p.unavailableReason());
      assertThat(p.unavailableReason()).startsWith("no CUDA device").doesNotContain("\n");
    }
  }
}
