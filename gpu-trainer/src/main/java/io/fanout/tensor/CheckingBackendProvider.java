package io.fanout.tensor;

/**
 * {@code cpu-checked}: the CPU backend in {@link CheckingBackend checking mode}; never chosen by
 * {@code auto}.
 */
public final class CheckingBackendProvider implements BackendProvider {
  @Override
  public String name() {
    return "cpu-checked";
  }

  @Override
  public int priority() {
    return -1;
  }

  @Override
  public boolean available() {
    return true;
  }

  @Override
  public Backend create() {
    return new CheckingBackend(new CpuBackend());
  }
}
