package io.fanout.tensor;

/**
 * The tensors of a {@link CheckingBackend}: stand-ins for device buffers that wrap a CPU tensor and
 * expose no host array, and the checks every operation makes on them (owner, freed, bounds).
 */
final class CheckedTensors {
  private CheckedTensors() {}

  static final class CheckedFloat implements FloatTensor {
    final CheckingBackend owner;
    FloatTensor inner;
    private final int length;

    CheckedFloat(CheckingBackend owner, FloatTensor inner) {
      this.owner = owner;
      this.inner = inner;
      this.length = inner.length();
    }

    @Override
    public int length() {
      return length;
    }

    @Override
    public Backend owner() {
      return owner;
    }
  }

  static final class CheckedInt implements IntTensor {
    final CheckingBackend owner;
    IntTensor inner;
    private final int length;

    CheckedInt(CheckingBackend owner, IntTensor inner) {
      this.owner = owner;
      this.inner = inner;
      this.length = inner.length();
    }

    @Override
    public int length() {
      return length;
    }

    @Override
    public Backend owner() {
      return owner;
    }
  }

  /** The CPU tensor behind {@code t}; fails unless {@code t} is a live tensor of {@code owner}. */
  static FloatTensor unwrap(CheckingBackend owner, FloatTensor t) {
    if (t instanceof CheckedFloat c && c.owner == owner) {
      if (c.inner == null) {
        throw new IllegalStateException("checked backend: use of a freed tensor");
      }
      return c.inner;
    }
    throw refused(t);
  }

  static IntTensor unwrap(CheckingBackend owner, IntTensor t) {
    if (t instanceof CheckedInt c && c.owner == owner) {
      if (c.inner == null) {
        throw new IllegalStateException("checked backend: use of a freed tensor");
      }
      return c.inner;
    }
    throw refused(t);
  }

  static IllegalStateException refused(Tensor t) {
    return new IllegalStateException(
        "checked backend: implicit host access: an operation got "
            + (t == null ? "null" : "a tensor of " + t.owner().name())
            + " instead of one of this backend; host data must come in through upload()");
  }

  /** Fails when {@code [off, off+n)} is outside {@code t}. */
  static void range(Tensor t, int off, int n, String what) {
    if (off < 0 || n < 0 || (long) off + n > t.length()) {
      throw new IllegalStateException(
          "checked backend: "
              + what
              + " of "
              + n
              + " elements at offset "
              + off
              + " outside a tensor of "
              + t.length());
    }
  }
}
