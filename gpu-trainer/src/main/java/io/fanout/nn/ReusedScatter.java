package io.fanout.nn;

import io.fanout.tensor.Aggregation;
import io.fanout.tensor.Backend;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.TensorBufs;

/**
 * Places layer 0's output on a pruned bottom block where the next layer reads it: the computed rows
 * and the cached embeddings of the reused ones, each at its row of the full block ({@link
 * ReusedRows}); and, backward, takes the computed rows' gradient out of the full one (the reused
 * rows' gradient stops there). Both moves are one-edge-per-row sums on the backend ({@link
 * Backend#aggregate}), exact copies, and so is taking the cached rows out of the embedding cache,
 * which stays on the backend: only their slots go up. Grow-only buffers.
 */
final class ReusedScatter implements AutoCloseable {
  private final Backend be;
  private final IdentityPtr identity;
  private IntTensor ptr; // identity's, covering the last expand's full rows
  private IntTensor perm;
  private IntTensor gather;
  private IntTensor slots;
  private FloatTensor full;
  private FloatTensor dyComputed;
  private IntTensor reusedRows;
  private int[] hostInts = new int[0];

  ReusedScatter(Backend be) {
    this.be = be;
    this.identity = new IdentityPtr(be);
  }

  /**
   * The full block's layer-0 output ({@code fullRows x w}): {@code y} holds the computed rows and
   * room for {@code r.count()} more after them, which receive the cached embeddings.
   */
  FloatTensor expand(FloatTensor y, ReusedRows r, int w) {
    int n = r.computed();
    int c = r.count();
    int f = r.fullRows();
    ptr = identity.rows(f);
    if (hostInts.length < f) {
      hostInts = new int[Math.max(f, hostInts.length * 3 / 2)];
    }
    for (int i = 0; i < c; i++) {
      hostInts[i] = r.slot(i);
    }
    slots = TensorBufs.ensure(be, slots, Math.max(1, c));
    be.upload(hostInts, 0, slots, 0, c);
    be.aggregate(Aggregation.SUM, ptr, 0, slots, 0, c, 0, r.embeddings(), 0, w, y, n * w);
    for (int k = 0; k < n; k++) {
      hostInts[r.rowOf(k)] = k;
    }
    for (int i = 0; i < c; i++) {
      hostInts[r.row(i)] = n + i;
    }
    perm = TensorBufs.ensure(be, perm, f);
    be.upload(hostInts, 0, perm, 0, f);
    for (int k = 0; k < n; k++) {
      hostInts[k] = r.rowOf(k);
    }
    gather = TensorBufs.ensure(be, gather, Math.max(1, n));
    be.upload(hostInts, 0, gather, 0, n);
    full = TensorBufs.ensure(be, full, (long) f * w);
    be.aggregate(Aggregation.SUM, ptr, 0, perm, 0, f, 0, y, 0, w, full, 0);
    return full;
  }

  /** The full output of the last {@link #expand}, {@code fullRows x w}. */
  FloatTensor full() {
    return full;
  }

  /**
   * The computed rows' part ({@code computed x w}) of {@code dFull}, the full output's gradient.
   */
  FloatTensor computedGradient(FloatTensor dFull, ReusedRows r, int w) {
    int n = r.computed();
    dyComputed = TensorBufs.ensure(be, dyComputed, (long) Math.max(1, n) * w);
    be.aggregate(Aggregation.SUM, ptr, 0, gather, 0, n, 0, dFull, 0, w, dyComputed, 0);
    return dyComputed;
  }

  /**
   * Appends the reused rows' part of {@code dFull} (row {@code r.row(i)} for slot {@code
   * r.slot(i)}) to {@code sink}: one gather of the batch's reused rows.
   */
  void accumulateReused(FloatTensor dFull, ReusedRows r, int w, ReusedGradients sink) {
    int c = r.count();
    for (int i = 0; i < c; i++) {
      hostInts[i] = r.row(i);
    }
    reusedRows = TensorBufs.ensure(be, reusedRows, Math.max(1, c));
    be.upload(hostInts, 0, reusedRows, 0, c);
    FloatTensor buf = sink.reserve(c);
    be.aggregate(Aggregation.SUM, ptr, 0, reusedRows, 0, c, 0, dFull, 0, w, buf, sink.offset());
    for (int i = 0; i < c; i++) {
      hostInts[i] = r.slot(i);
    }
    sink.appended(hostInts, c);
  }

  @Override
  public void close() {
    identity.close();
    TensorBufs.free(be, perm);
    TensorBufs.free(be, gather);
    TensorBufs.free(be, slots);
    TensorBufs.free(be, full);
    TensorBufs.free(be, dyComputed);
    TensorBufs.free(be, reusedRows);
    ptr = perm = gather = slots = reusedRows = null;
    full = dyComputed = null;
  }
}
