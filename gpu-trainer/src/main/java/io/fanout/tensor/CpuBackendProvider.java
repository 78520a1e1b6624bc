package io.fanout.tensor;

/** The always-available CPU backend. */
public final class CpuBackendProvider implements BackendProvider {
  @Override
  public String name() {
    return "cpu";
  }

  @Override
  public int priority() {
    return 0;
  }

  @Override
  public boolean available() {
    return true;
  }

  @Override
  public Backend create() {
    return new CpuBackend();
  }
}
