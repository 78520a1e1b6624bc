package io.fanout.tensor.cuda;

import io.fanout.tensor.Backend;
import io.fanout.tensor.BackendProvider;

/**
 * The CUDA backend's {@link BackendProvider} ({@code cuda}, priority 10): available when the CUDA
 * driver loads and reports at least one device. On a machine without one it reports why, in one
 * line, and never throws.
 */
public final class CudaBackendProvider implements BackendProvider {
  private static volatile String probe;

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
    return probe().isEmpty();
  }

  @Override
  public String unavailableReason() {
    return probe();
  }

  /** "" when a device is usable, else the reason (probed once per process). */
  static String probe() {
    String p = probe;
    if (p == null) {
      p = reasonUnavailable();
      probe = p;
    }
    return p;
  }

  private static String reasonUnavailable() {
    try {
      int n = CudaDriver.deviceCount();
      return n > 0 ? "" : "no CUDA device visible (cuDeviceGetCount: 0)";
    } catch (CudaException e) {
      return "no CUDA device usable: " + e.getMessage();
    } catch (LinkageError | RuntimeException e) {
      return "no CUDA device usable: " + CudaDriver.firstLine(String.valueOf(e.getMessage()));
    }
  }

  @Override
  public Backend create() {
    return create(-1);
  }

  @Override
  public Backend create(int ordinal) {
    if (!available()) {
      throw new IllegalStateException("backend 'cuda' is not available here: " + probe());
    }
    return new CudaBackend(ordinal);
  }
}
