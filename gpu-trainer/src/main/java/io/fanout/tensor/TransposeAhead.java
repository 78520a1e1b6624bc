package io.fanout.tensor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Transposed CSRs ({@link TransposedCsr}) built ahead of the backward passes that need them, on one
 * helper thread, while the caller's thread queues the forward pass: a backend whose backward reads
 * a transpose built on the host takes it ready instead of building it between two kernels.
 *
 * <p>A transpose is keyed by the identity of the two host arrays it reads (a backend's mirrors of
 * its int tensors) and the arguments of {@link TransposedCsr#build}. The caller must {@link
 * #invalidate} an array before writing it: that waits for a build reading it and drops the build,
 * so a transpose never mixes two uploads. The packed arrays are recycled through {@link #release},
 * so steady training allocates none.
 *
 * <p>The result is the same array, bit for bit, as building on the caller's thread: the helper
 * changes when the work is done, not what it computes. Not for concurrent callers beyond the
 * internal locking: one trainer thread prepares, takes and invalidates.
 */
public final class TransposeAhead implements AutoCloseable {
  private static final int MAX_SPARE_BUFFERS = 8;

  private final String threadName;
  private final List<Prepared> pending = new ArrayList<>();
  private final ArrayDeque<int[]> spare = new ArrayDeque<>();
  private ExecutorService helper;
  private boolean closed;

  /** A builder whose helper thread, started on the first {@link #prepare}, is named so. */
  public TransposeAhead(String threadName) {
    this.threadName = threadName;
  }

  /**
   * What a transpose is built from: the arguments of {@link TransposedCsr#build(int[], int, int[],
   * int, int, int)}. Equal keys name the same arrays (by identity) and the same range.
   */
  public record Key(int[] indptr, int pOff, int[] indices, int iOff, int rows, int minSrcRows) {
    TransposedCsr build(int[] scratch) {
      return TransposedCsr.build(indptr, pOff, indices, iOff, rows, minSrcRows, scratch);
    }

    boolean reads(int[] a) {
      return indptr == a || indices == a;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k
          && indptr == k.indptr
          && pOff == k.pOff
          && indices == k.indices
          && iOff == k.iOff
          && rows == k.rows
          && minSrcRows == k.minSrcRows;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(indptr) * 31 + rows;
    }
  }

  private record Prepared(Key key, Future<TransposedCsr> result) {}

  /**
   * Starts building the transpose of {@code key} on the helper thread. A second request for the
   * same key is ignored.
   */
  public synchronized void prepare(Key key) {
    if (closed) {
      throw new IllegalStateException("transpose helper is closed");
    }
    for (Prepared p : pending) {
      if (p.key().equals(key)) {
        return;
      }
    }
    if (helper == null) {
      helper =
          Executors.newSingleThreadExecutor(
              r -> {
                Thread t = new Thread(r, threadName);
                t.setDaemon(true);
                return t;
              });
    }
    int[] scratch = spare.pollFirst();
    pending.add(new Prepared(key, helper.submit(() -> key.build(scratch))));
  }

  /**
   * The transpose of {@code key}: the prepared one (waiting for it), or, when none was prepared for
   * exactly that key, one built now. Hand it back through {@link #release} once its contents are no
   * longer read.
   *
   * @throws IllegalArgumentException as {@link TransposedCsr#build} does
   */
  public synchronized TransposedCsr take(Key key) {
    for (int k = 0; k < pending.size(); k++) {
      Prepared p = pending.get(k);
      if (p.key().equals(key)) {
        pending.remove(k);
        return await(p.result());
      }
    }
    return key.build(spare.pollFirst());
  }

  /** Keeps {@code t}'s packed array for a later build. */
  public synchronized void release(TransposedCsr t) {
    if (t != null && spare.size() < MAX_SPARE_BUFFERS) {
      spare.addFirst(t.packed());
    }
  }

  /**
   * Waits for the builds that read {@code a} and drops them; call before writing {@code a}. Cheap
   * when none does.
   */
  public synchronized void invalidate(int[] a) {
    for (int k = pending.size() - 1; k >= 0; k--) {
      Prepared p = pending.get(k);
      if (p.key().reads(a)) {
        pending.remove(k);
        release(settle(p));
      }
    }
  }

  /** Waits for a build nobody will take; its transpose, or null when it failed. */
  private static TransposedCsr settle(Prepared p) {
    try {
      return await(p.result());
    } catch (RuntimeException e) {
      return null; // it failed on contents being replaced or dropped: nobody reads the error
    }
  }

  /** Builds prepared and not yet taken. */
  public synchronized int pending() {
    return pending.size();
  }

  /** Waits for {@code f} through interrupts (a build is bounded work), then restores the flag. */
  private static TransposedCsr await(Future<TransposedCsr> f) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return f.get();
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          if (e.getCause() instanceof RuntimeException r) {
            throw r;
          }
          if (e.getCause() instanceof Error err) {
            throw err;
          }
          throw new IllegalStateException("transpose build failed", e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Waits for the pending builds, then lets the helper thread end. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (Prepared p : pending) {
      settle(p);
    }
    pending.clear();
    spare.clear();
    if (helper != null) {
      helper.shutdown(); // idle: every build it ran was awaited above
    }
  }
}
