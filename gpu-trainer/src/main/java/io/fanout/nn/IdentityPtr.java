package io.fanout.nn;

import io.fanout.tensor.Backend;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.TensorBufs;

/**
 * The row pointer {@code 0, 1, 2, ...} of a one-edge-per-row CSR on a backend, for moving rows with
 * {@link Backend#aggregate} and {@link Backend#aggregateBackward}; grows by half again when more
 * rows are asked for, uploaded once per growth.
 */
final class IdentityPtr implements AutoCloseable {
  private final Backend be;
  private IntTensor ptr;
  private int rows = -1;

  IdentityPtr(Backend be) {
    this.be = be;
  }

  /** The pointer, covering at least {@code n} rows. */
  IntTensor rows(int n) {
    if (n > rows) {
      int cap = Math.max(n, rows + rows / 2);
      int[] h = new int[cap + 1];
      for (int i = 0; i <= cap; i++) {
        h[i] = i;
      }
      ptr = TensorBufs.ensure(be, ptr, cap + 1);
      be.upload(h, 0, ptr, 0, cap + 1);
      rows = cap;
    }
    return ptr;
  }

  @Override
  public void close() {
    TensorBufs.free(be, ptr);
    ptr = null;
    rows = -1;
  }
}
