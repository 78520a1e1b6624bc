package io.fanout.tensor;

/** A heap host buffer of a {@link CheckingBackend}, counted by it while open. */
final class CheckedHost implements HostFloats {
  final CheckingBackend owner;
  final HeapHostFloats inner;
  boolean open = true;

  CheckedHost(CheckingBackend owner, int n) {
    this.owner = owner;
    inner = new HeapHostFloats(n);
  }

  @Override
  public int length() {
    return inner.length();
  }

  @Override
  public java.nio.FloatBuffer floats() {
    return inner.floats();
  }

  @Override
  public void close() {
    if (open) {
      open = false;
      owner.hostClosed();
      inner.close();
    }
  }
}
