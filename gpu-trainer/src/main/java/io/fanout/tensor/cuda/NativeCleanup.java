package io.fanout.tensor.cuda;

import java.util.function.IntSupplier;

/**
 * Runs a sequence of release calls, each whether or not the ones before it failed, and rethrows the
 * first failure at the end: native handles are freed even when one release fails.
 */
final class NativeCleanup {
  private RuntimeException first;

  /** Runs a driver call returning a CUresult. */
  void run(String call, IntSupplier driverCall) {
    try {
      CudaDriver.check(call, driverCall.getAsInt());
    } catch (RuntimeException e) {
      keep(e);
    }
  }

  void close(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (RuntimeException e) {
      keep(e);
    } catch (Exception e) {
      keep(new IllegalStateException(e));
    }
  }

  private void keep(RuntimeException e) {
    if (first == null) {
      first = e;
    } else {
      first.addSuppressed(e);
    }
  }

  void rethrow() {
    if (first != null) {
      throw first;
    }
  }
}
