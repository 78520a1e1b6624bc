package io.fanout.train.typed;

import io.fanout.nn.EmbeddingTable;
import io.fanout.nn.typed.TypedModel;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.TensorBufs;
import io.fanout.train.HotReuse;
import io.fanout.train.RefreshWorker;
import io.fanout.train.ReuseRefresh;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

/**
 * The cache of the hot vertices' layer-0 outputs of a typed run, on the one-type schedule that
 * bounds staleness ({@link HotReuse#lag(boolean)}, {@link HotReuse#period(boolean)}).
 *
 * <p>Step {@code t} (the optimizer's step count, across epochs) runs on the parameters after {@code
 * t} updates. Refresh {@code k} takes those of step {@code kP} and is read from step {@code kP +
 * lag} until refresh {@code k+1} lands, so the oldest rows a step reads are {@code P + lag - 1 = S}
 * steps old. Inline ({@code --reuse-refresh inline}, and {@code auto}) the training thread computes
 * it on the trainer's backend before step {@code kP}, which reads it: {@code lag = 0}, {@code P = S
 * + 1}, rows 0 to {@code S} steps old. Overlapped ({@code --reuse-refresh overlapped}) a worker
 * thread {@code fanout-typed-hot-refresh} computes it on a CPU backend of its own, from a host
 * snapshot of the dense parameters and of the embedded types' rows of the hot block, while the
 * steps go on: {@code lag = max(1, ceil(S/2))}, {@code P = S + 1 - lag}, and a step that finds its
 * refresh not done waits for it rather than exceed the bound. The first step of a run, or of a
 * resumed run, has no cache yet and computes one from its own parameters (age 0).
 *
 * <p>A refresh runs layer 0 over the hot set's block as a training step does, with input dropout
 * keyed by the seed and the refresh's step, and keeps its output (before the activation) in a
 * tensor of the trainer's backend. It is a pure function of the parameters at fixed steps, so the
 * model does not depend on the timing of the worker.
 *
 * <p>Deferred backward ({@link HotReuse#deferredBackward()}): steps add their reused rows' output
 * gradients per slot into a host sum ({@link #addReusedGradients}). When refresh {@code k+1} lands
 * the steps that read refresh {@code k} are done: layer 0 is computed again over the hot block at
 * refresh {@code k}'s parameters, input rows and key on a {@link TypedModel#bottomLayerCopy} and
 * the sum taken back through it. Inline that gradient is spread over the readers of refresh {@code
 * k+1}, overlapped (computed by the worker) over those of refresh {@code k+2}: each adds a {@code
 * P}-th ({@link #addDeferredGradient}).
 */
final class TypedHotRefresh implements AutoCloseable {
  private final TypedModel model;
  private final Backend be;
  private final TypedHotSet hot;
  private final int staleness;
  private final int lag;
  private final int period;
  private final long seed;
  private final int n; // floats of a refresh: hot rows x layer 0's width
  private final TypedModel worker; // overlapped: the copy that computes; null inline
  private final Backend own; // overlapped: the worker's backend
  private final RefreshWorker pool; // overlapped: the worker thread
  private float[] host; // overlapped: the worker's last result
  private FloatTensor cache;
  private Future<?> pending;
  private long pendingStep = -1; // the step whose parameters the pending refresh takes
  private long taken = -1; // the step whose parameters the cache holds
  private int refreshes; // started, counted on the training thread
  private long maxAge = -1;
  private volatile long nanos; // computing (on whichever thread)
  private final boolean deferred; // --reuse-backward deferred
  private final int width; // layer 0's output width
  private final TypedModel backwardCopy; // deferred: where the deferred backward runs
  private float[] sink; // deferred: the reused rows' output gradients of the published refresh
  private float[] pendingParams; // deferred: the parameters of the pending refresh
  private float[][] pendingInputs; // and its input rows (embedded types' snapshot)
  private float[] publishedParams; // those of the published refresh
  private float[][] publishedInputs;
  private Future<?> pendingBackward; // overlapped: the backward of the refresh replaced last
  private float[] gradHost; // overlapped: the worker's deferred gradient
  private FloatTensor sinkTensor; // the handed-over sum on the backward copy's backend
  private FloatTensor deferredGrad; // the deferred gradient the current steps spread; null: none

  /**
   * @param reuse the settings, staleness resolved ({@link HotReuse#resolve}); refreshes are
   *     overlapped when {@link HotReuse#refresh()} is {@link ReuseRefresh#OVERLAPPED}, else inline
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
    boolean inline = !overlapped(reuse);
    this.lag = reuse.lag(inline);
    this.period = reuse.period(inline);
    this.width = model.layerOut(0);
    this.n = Math.multiplyExact(hot.size(), width);
    this.deferred = reuse.deferredBackward();
    if (deferred) {
      sink = new float[n];
    }
    if (inline) {
      this.own = null;
      this.worker = null;
      this.pool = null;
      this.backwardCopy = deferred ? model.bottomLayerCopy() : null;
    } else {
      this.own = be instanceof CpuBackend cpu ? cpu.sibling() : new CpuBackend();
      this.worker = TypedModel.bottomLayerCopy(model.config(), own);
      this.pool = new RefreshWorker("fanout-typed-hot-refresh");
      this.backwardCopy = worker;
    }
  }

  /** Whether {@code reuse} refreshes on a worker thread: only when asked ({@code auto}: inline). */
  static boolean overlapped(HotReuse reuse) {
    return reuse.refresh() == ReuseRefresh.OVERLAPPED;
  }

  /** Steps between two refreshes ({@link HotReuse#period(boolean)}). */
  int period() {
    return period;
  }

  /** Steps between a refresh's parameters and its first reader: 0 inline. */
  int lag() {
    return lag;
  }

  /** Whether refreshes run on the training thread and backend. */
  boolean inline() {
    return pool == null;
  }

  /**
   * The cache that step {@code step} reads ({@code hot.size() x layerOut(0)} floats), called before
   * the step with the parameters it uses: lands the refresh due now, starts the next one when one
   * is due, and computes one first when there is none.
   */
  FloatTensor beforeStep(long step) {
    if (pending != null && step == pendingStep + lag) {
      land();
    }
    if (cache == null) {
      start(step);
      land();
    } else if (step % period == 0) {
      start(step);
      if (lag == 0) {
        land();
      }
    }
    long age = step - taken;
    if (age > staleness) { // the schedule above never lets this happen
      throw new IllegalStateException(
          "step " + step + " would read embeddings " + age + " steps old; staleness " + staleness);
    }
    maxAge = Math.max(maxAge, age);
    return cache;
  }

  /** The dropout key of the refresh that takes step {@code step}'s parameters. */
  private long dropoutKey(long step) {
    return dropoutKey(seed, step);
  }

  /** The dropout key of the refresh of run seed {@code seed} that takes step {@code step}'s. */
  static long dropoutKey(long seed, long step) {
    return CounterRng.key(seed, 0x7407, step, 0);
  }

  /**
   * Starts the refresh of step {@code step}'s parameters. Inline it is computed into the cache now;
   * overlapped the worker computes it into {@link #host} from host snapshots taken now.
   */
  private void start(long step) {
    pendingStep = step;
    refreshes++;
    long key = dropoutKey(step);
    if (deferred) {
      pendingParams = model.params();
      pendingInputs = snapshotInputs();
    }
    if (pool == null) {
      long t0 = System.nanoTime();
      FloatTensor out = model.bottomLayer(hot.block(), hot.features(), true, key);
      cache = TensorBufs.ensure(be, cache, Math.max(1, n));
      if (n > 0) {
        be.copy(out, 0, cache, 0, n);
      }
      nanos += System.nanoTime() - t0;
      pending = CompletableFuture.completedFuture(null);
      return;
    }
    float[] params = deferred ? pendingParams : model.params();
    float[][] inputs = deferred ? pendingInputs : snapshotInputs();
    pending =
        pool.submit(
            () -> {
              long t0 = System.nanoTime();
              worker.loadParams(params);
              FloatTensor out = worker.bottomLayer(hot.block(), inputs, true, key);
              host = host == null ? new float[n] : host;
              if (n > 0) {
                own.download(out, 0, host, 0, n);
              }
              nanos += System.nanoTime() - t0; // one writer at a time: the refreshes are serial
              return null;
            });
  }

  /**
   * The hot block's input rows as of now: its feature rows, and the embedded types' rows copied out
   * of the model's tables.
   */
  private float[][] snapshotInputs() {
    float[][] inputs = hot.features().clone();
    for (int t = 0; t < inputs.length; t++) {
      EmbeddingTable e = model.embeddings(t);
      if (e != null) {
        int[] ids = hot.block().nodes(t);
        inputs[t] = new float[Math.multiplyExact(ids.length, e.dim())];
        e.gather(ids, 0, ids.length, inputs[t], 0);
      }
    }
    return inputs;
  }

  /** Waits for the pending refresh and makes it the cache the steps read. */
  private void land() {
    await(pending);
    pending = null;
    if (deferred) {
      if (pendingBackward != null) { // overlapped: started at the previous landing
        await(pendingBackward);
        pendingBackward = null;
        deferredGrad = TensorBufs.ensure(be, deferredGrad, model.numParams());
        be.upload(gradHost, 0, deferredGrad, 0, model.numParams());
      }
      if (taken >= 0) {
        backwardPublished();
      }
      publishedParams = pendingParams;
      publishedInputs = pendingInputs;
    }
    if (pool != null) {
      cache = TensorBufs.ensure(be, cache, Math.max(1, n));
      if (n > 0) {
        be.upload(host, 0, cache, 0, n);
      }
    }
    taken = pendingStep;
  }

  /**
   * The deferred backward of the refresh being replaced: the steps that read it are done, so the
   * sink holds exactly their reused rows' gradient. Layer 0 is computed again over the hot block at
   * that refresh's parameters, input rows and dropout key, and the sum taken back through it.
   * Inline the result is the gradient the steps reading the refresh that lands now spread;
   * overlapped the worker computes it and it lands with the next refresh.
   */
  private void backwardPublished() {
    long key = dropoutKey(taken);
    float[] sum = sink;
    sink = new float[n];
    float[] params = publishedParams;
    float[][] inputs = publishedInputs;
    if (pool == null) {
      long t0 = System.nanoTime();
      deferredBackward(params, inputs, key, sum);
      deferredGrad = backwardCopy.gradTensor();
      nanos += System.nanoTime() - t0;
      return;
    }
    pendingBackward =
        pool.submit(
            () -> {
              long t0 = System.nanoTime();
              deferredBackward(params, inputs, key, sum);
              gradHost = gradHost == null ? new float[model.numParams()] : gradHost;
              own.download(worker.gradTensor(), 0, gradHost, 0, model.numParams());
              nanos += System.nanoTime() - t0;
              return null;
            });
  }

  /** On the backward copy: layer 0's parameter gradient for output gradient {@code sum}. */
  private void deferredBackward(float[] params, float[][] inputs, long key, float[] sum) {
    Backend cb = backwardCopy.backend();
    backwardCopy.loadParams(params);
    backwardCopy.zeroGrad();
    backwardCopy.bottomLayer(hot.block(), inputs, true, key);
    sinkTensor = TensorBufs.ensure(cb, sinkTensor, Math.max(1, n));
    if (n > 0) {
      cb.upload(sum, 0, sinkTensor, 0, n);
    }
    backwardCopy.bottomLayerBackward(sinkTensor);
  }

  /** Whether steps feed a deferred backward ({@code --reuse-backward deferred}). */
  boolean deferred() {
    return deferred;
  }

  /**
   * Adds a step's reused rows' output gradients ({@code rows}, row {@code j} of width layer 0's for
   * cache row {@code slots[j]}) to the sum of the refresh it read, in step order.
   */
  void addReusedGradients(int[] slots, float[] rows) {
    for (int j = 0; j < slots.length; j++) {
      int to = slots[j] * width;
      int from = j * width;
      for (int c = 0; c < width; c++) {
        sink[to + c] += rows[from + c];
      }
    }
  }

  /**
   * Adds a period-th of the deferred gradient that landed with the refresh in use to {@code grads}
   * (the model's, aligned with its parameters); a no-op before the first one lands.
   */
  void addDeferredGradient(FloatTensor grads) {
    if (deferredGrad != null) {
      be.axpy(model.numParams(), 1f / period, deferredGrad, 0, grads, 0);
    }
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

  /** Seconds spent computing the refreshes done so far. */
  double refreshSeconds() {
    return nanos / 1e9;
  }

  /** Seconds the training thread waited for an overlapped refresh (0 inline). */
  double waitSeconds() {
    return pool == null ? 0 : pool.waitNanos() / 1e9;
  }

  /** Waits for {@code f}: a worker's refresh; inline, one computed already (nothing to wait). */
  private void await(Future<?> f) {
    if (pool != null) {
      pool.await(f);
    }
  }

  @Override
  public void close() {
    try {
      if (pool != null) {
        pool.stop(pending, pendingBackward);
      }
      pending = pendingBackward = null;
      if (backwardCopy != null) {
        TensorBufs.free(backwardCopy.backend(), sinkTensor);
        sinkTensor = null;
      }
      if (worker != null) {
        worker.close();
      } else if (backwardCopy != null) {
        backwardCopy.close();
      }
    } finally {
      if (own != null) {
        own.close();
      }
      TensorBufs.free(be, cache);
      cache = null;
      if (pool != null) { // inline, the deferred gradient is the backward copy's own
        TensorBufs.free(be, deferredGrad);
      }
      deferredGrad = null;
    }
  }
}
