package io.fanout.train;

import io.fanout.tensor.Backend;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.HostFloats;

/**
 * A trainer's dense gradient exchange, the same for every trainer: download the gradients into a
 * host buffer the backend allocated (page-locked on a GPU, so the copies are DMA), {@link
 * GradientReducer#allReduceMean(java.nio.FloatBuffer, int)} in it, upload from it. A single-process
 * run ({@link GradientReducer#LOCAL}) has nothing to exchange and leaves them on the backend.
 */
public final class GradientExchange implements AutoCloseable {
  private final Backend be;
  private final GradientReducer reducer;
  private HostFloats host;

  public GradientExchange(Backend be, GradientReducer reducer) {
    this.be = be;
    this.reducer = reducer;
  }

  /** The reducer the gradients go through. */
  public GradientReducer reducer() {
    return reducer;
  }

  /** Replaces {@code grads[0 .. n)} with their mean over the replicas. */
  public void meanOf(FloatTensor grads, int n) {
    if (reducer == GradientReducer.LOCAL) {
      return;
    }
    if (host == null) {
      host = be.allocHostFloats(n);
    }
    be.download(grads, 0, host, 0, n);
    reducer.allReduceMean(host.floats(), n);
    be.upload(host, 0, grads, 0, n);
  }

  /** Frees the host buffer (the reducer is the caller's). */
  @Override
  public void close() {
    if (host != null) {
      host.close();
      host = null;
    }
  }
}
