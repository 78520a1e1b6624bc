package io.fanout.train;

import io.fanout.nn.GnnModel;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The embedding cache of the hot vertices and the worker that refreshes it, on a schedule that
 * bounds staleness.
 *
 * <p>Step {@code t} (the optimizer's step count, across epochs) runs on the parameters after {@code
 * t} updates. Refresh {@code k} takes those of step {@code kP} ({@code P =} {@link
 * HotReuse#period()}), computes layer 0 over the {@link HotSet} block on its own thread and its own
 * copy of the model (overlapped with training), and is used from step {@code kP + lag} ({@link
 * HotReuse#lag()}) until refresh {@code k+1} lands, so the oldest embedding a step reads is {@code
 * P + lag - 1 = S} steps old. When the refresh is not done by then, training waits for it. The
 * first step of a run computes its embeddings before it runs (and waits for them), so every step
 * reuses and every batch can be pruned when it is loaded. The embeddings are a pure function of the
 * parameters at fixed steps, so training is deterministic; a resumed run starts with an empty
 * cache, so it is not bit-identical to an uninterrupted one.
 */
final class HotRefresh implements AutoCloseable {
  private final HotSet set;
  private final HotReuse reuse;
  private final GnnModel worker;
  private final ExecutorService pool;
  private final int width;
  private float[] published;
  private float[] spare;
  private long publishedVersion = -1;
  private Future<float[]> pending;
  private long pendingVersion = -1;
  private long maxAge = -1;
  private long refreshNanos;
  private long waitNanos;
  private int refreshes;
  private boolean uploaded; // by the worker thread only

  HotRefresh(GnnModel model, HotSet set, HotReuse reuse) {
    this.set = set;
    this.reuse = reuse;
    this.worker = new GnnModel(model.config(), model.backend());
    this.width = model.layerOutDim(0);
    this.pool =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "fanout-hot-refresh");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Called before step {@code step} (the optimizer's step count) with the parameters that step
   * uses: lands the refresh due now, starts the next one when one is due, and returns the
   * embeddings the step reuses (at most S steps old). The first call of a run has none yet: it
   * computes them from this step's parameters and waits for them (age 0), so every step reuses.
   */
  float[] beforeStep(long step, GnnModel model) {
    if (pending != null && step == pendingVersion + reuse.lag()) {
      land();
    }
    if (published == null) {
      pendingVersion = step;
      pending = pool.submit(refresh(model.params(), null));
      land();
    } else if (step % reuse.period() == 0) {
      float[] into = spare;
      spare = null;
      pendingVersion = step;
      pending = pool.submit(refresh(model.params(), into));
    }
    maxAge = Math.max(maxAge, step - publishedVersion);
    return published;
  }

  private void land() {
    float[] done = await();
    spare = published;
    published = done;
    publishedVersion = pendingVersion;
  }

  private java.util.concurrent.Callable<float[]> refresh(float[] params, float[] into) {
    return () -> compute(params, into);
  }

  private float[] compute(float[] params, float[] into) {
    long t0 = System.nanoTime();
    worker.loadParams(params);
    if (!uploaded) {
      // the block and its rows never change: up once, then every refresh only computes
      worker.uploadLayerInput(0, set.block(), set.features());
      uploaded = true;
    }
    float[] out = worker.forwardUploadedLayer(0);
    int n = set.size() * width;
    float[] copy = into != null && into.length >= n ? into : new float[n];
    System.arraycopy(out, 0, copy, 0, n);
    refreshNanos += System.nanoTime() - t0;
    refreshes++;
    return copy;
  }

  private float[] await() {
    long t0 = System.nanoTime();
    try {
      return pending.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for the hot-embedding refresh", e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      throw c instanceof RuntimeException r ? r : new IllegalStateException(c);
    } finally {
      pending = null;
      waitNanos += System.nanoTime() - t0;
    }
  }

  /** The oldest embedding a step has read so far, in steps (-1: none read). */
  int maxAge() {
    return (int) maxAge;
  }

  /** Seconds the worker spent computing refreshes (complete ones). */
  double refreshSeconds() {
    return refreshNanos / 1e9;
  }

  /** Seconds training waited for a refresh. */
  double waitSeconds() {
    return waitNanos / 1e9;
  }

  int refreshes() {
    return refreshes;
  }

  @Override
  public void close() {
    if (pending != null) {
      try {
        await();
      } catch (RuntimeException ignored) {
        // closing after a failure: the worker's own error is not the one to report
      }
    }
    pool.shutdown();
    try {
      // An action leaves no fanout-* thread behind: wait for the worker thread to end.
      pool.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    worker.close();
  }
}
