package io.fanout.train.typed;

import io.fanout.nn.typed.TypedModel;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.TensorBufs;
import io.fanout.train.HotReuse;

/**
 * The cache of the hot vertices' layer-0 outputs of a typed run, refreshed inline (on the training
 * thread and backend, as the one-type {@code --reuse-refresh inline}) at most every {@code
 * staleness} steps.
 *
 * <p>Step {@code t} (the optimizer's step count, across epochs) reads the refresh of step {@code
 * period x floor(t / period)}, {@code period = S + 1}, computed before that step with its
 * parameters: its rows are 0 to {@code S} steps old. The first step of a run, or of a resumed run,
 * has no cache yet and computes one (age 0). A refresh runs layer 0 over the hot set's block as a
 * training step does, with input dropout keyed by the seed and the refresh's step, and keeps its
 * output (before the activation) in a tensor of the backend.
 */
final class TypedHotRefresh implements AutoCloseable {
  private final TypedModel model;
  private final Backend be;
  private final TypedHotSet hot;
  private final int staleness;
  private final int period;
  private final long seed;
  private FloatTensor cache;
  private long taken = -1; // the step whose parameters the cache holds
  private int refreshes;
  private long maxAge = -1;
  private long nanos;

  /**
   * @param reuse the settings, staleness resolved ({@link HotReuse#resolve})
   */
  TypedHotRefresh(TypedModel model, TypedHotSet hot, HotReuse reuse, long seed) {
    this.model = model;
    this.be = model.backend();
    this.hot = hot;
    this.staleness = reuse.staleness();
    this.seed = seed;
    if (staleness < 1) {
      throw new IllegalArgumentException("staleness is resolved to at least 1 step first");
    }
    this.period = reuse.period(true); // inline: no lag, S + 1
  }

  /** Steps between two refreshes: {@code S + 1} ({@link HotReuse#period(boolean)}, inline). */
  int period() {
    return period;
  }

  /**
   * The cache that step {@code step} reads ({@code hot.size() x layerOut(0)} floats), refreshed
   * first when it is due or there is none.
   */
  FloatTensor beforeStep(long step) {
    if (cache == null || step % period == 0) {
      refresh(step);
    }
    long age = step - taken;
    if (age > staleness) { // the schedule above never lets this happen
      throw new IllegalStateException(
          "step " + step + " would read embeddings " + age + " steps old; staleness " + staleness);
    }
    maxAge = Math.max(maxAge, age);
    return cache;
  }

  private void refresh(long step) {
    long t0 = System.nanoTime();
    FloatTensor out =
        model.bottomLayer(hot.block(), hot.features(), true, CounterRng.key(seed, 0x7407, step, 0));
    long n = (long) hot.size() * model.layerOut(0);
    cache = TensorBufs.ensure(be, cache, Math.max(1, n));
    if (n > 0) {
      be.copy(out, 0, cache, 0, (int) n);
    }
    taken = step;
    refreshes++;
    nanos += System.nanoTime() - t0;
  }

  /** The step whose parameters the cache holds (-1: none yet). */
  long takenAt() {
    return taken;
  }

  int staleness() {
    return staleness;
  }

  int refreshes() {
    return refreshes;
  }

  /** The oldest cache any step has read, in steps (-1: none). */
  long maxAge() {
    return maxAge;
  }

  double refreshSeconds() {
    return nanos / 1e9;
  }

  @Override
  public void close() {
    TensorBufs.free(be, cache);
    cache = null;
  }
}
