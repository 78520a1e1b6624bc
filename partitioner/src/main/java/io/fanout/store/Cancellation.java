package io.fanout.store;

import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Whether the caller of the work running on this thread has cancelled it. A caller that can be
 * cancelled (a Spark stage whose job group or tag was cancelled) runs the work inside {@link
 * #watching}; long loops call {@link #check} between units of work, and every publish step calls it
 * before it makes an output visible, so that nothing is published after a cancel. Without a
 * watching caller, {@link #check} never throws.
 */
public final class Cancellation {
  private static final ThreadLocal<BooleanSupplier> CURRENT = new ThreadLocal<>();

  private Cancellation() {}

  /** Runs {@code body} on this thread with {@code cancelled} as its cancellation state. */
  public static <T> T watching(BooleanSupplier cancelled, Supplier<T> body) {
    BooleanSupplier previous = CURRENT.get();
    CURRENT.set(cancelled);
    try {
      return body.get();
    } finally {
      if (previous == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(previous);
      }
    }
  }

  /** True when the work on this thread was cancelled. */
  public static boolean requested() {
    BooleanSupplier c = CURRENT.get();
    return c != null && c.getAsBoolean();
  }

  /**
   * Throws when the work on this thread was cancelled.
   *
   * @param what the work, for the message (e.g. "publishing graph store /data/cora.store")
   * @throws CancelledException when cancelled
   */
  public static void check(String what) {
    if (requested()) {
      throw new CancelledException(what + ": cancelled by the caller");
    }
  }
}
