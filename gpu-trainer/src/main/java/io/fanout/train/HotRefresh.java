package io.fanout.train;

import io.fanout.nn.GnnModel;
import io.fanout.nn.ModelKind;
import io.fanout.nn.ReusedGradients;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.TensorBufs;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;

/**
 * The embedding cache of the hot vertices and the worker that refreshes it, on a schedule that
 * bounds staleness.
 *
 * <p>Step {@code t} (the optimizer's step count, across epochs) runs on the parameters after {@code
 * t} updates. Refresh {@code k} takes those of step {@code kP} ({@code P =} {@link
 * HotReuse#period(boolean)}), computes layer 0 over the {@link HotSet} block on its own copy of the
 * model, and is used from step {@code kP + lag} ({@link HotReuse#lag(boolean)}) until refresh
 * {@code k+1} lands, so the oldest embedding a step reads is {@code P + lag - 1 = S} steps old.
 * Overlapped, the lag gives the worker time to compute; when the refresh is not done by then,
 * training waits for it. Inline, the lag is 0: the step that takes the parameters reads the result,
 * so a refresh serves {@code S + 1} steps, with embeddings 0 to S steps old. The first step of a
 * run computes its embeddings before it runs (and waits for them), so every step reuses and every
 * batch can be pruned when it is loaded. The embeddings are a pure function of the parameters at
 * fixed steps, so training is deterministic; a resumed run starts with an empty cache, so it is not
 * bit-identical to an uninterrupted one.
 *
 * <p>Overlapped ({@link HotReuse#inlineOn}): the copy lives on a CPU backend of its own (a backend
 * is used by one thread at a time) and a worker thread computes, overlapped with training; on a GPU
 * trainer this is the CPU's share of the work, as in NeutronOrch. Inline: the copy lives on the
 * trainer's backend and the training thread computes at step {@code kP}, before that step.
 *
 * <p>The embeddings steps read live on the trainer's backend, in two tensors (the published one and
 * the one the next refresh lands in): an overlapped refresh goes up once when it lands, an inline
 * one is copied there on the device, and a step takes its cached rows out of it on the backend.
 *
 * <p>Refreshes compute layer 0 as a training step does, with dropout on the hot block's input rows;
 * the masks come from the seed and the step whose parameters the refresh takes ({@link
 * #dropoutKey}), so the rows a step reuses carry input dropout as its computed rows do, and a
 * refresh is a pure function of its step.
 *
 * <p>Deferred backward ({@link HotReuse#deferredBackward()}): steps add the output gradient of the
 * rows they reuse into a hot-sized sum ({@link #gradientSink()}) on the trainer's backend. When
 * refresh {@code k+1} lands, the steps that read refresh {@code k} are done and the sum holds
 * exactly their gradient: the worker computes layer 0 again at refresh {@code k}'s parameters and
 * masks (its own state is a later refresh's by then) and takes the sum back through it. The
 * resulting parameter gradient lands with refresh {@code k+2} (overlapped; inline, it is computed
 * at once and lands with refresh {@code k+1}), and each of the P steps that read that refresh adds
 * a P-th of it ({@link #addDeferredGradient}). So the gradient of every reused row reaches layer 0
 * through the very computation that produced the row, at most {@code 3P - 1} steps late (inline
 * {@code 2P - 1}), at fixed steps: training stays deterministic.
 */
final class HotRefresh implements AutoCloseable {
  private final HotSet set;
  private final HotReuse reuse;
  private final long seed; // keys the refreshes' dropout masks
  private final int lag; // steps between a refresh's parameters and its first reader
  private final int period; // steps between two refreshes
  private final Backend be; // the trainer's: the embeddings steps read live here
  private final GnnModel worker;
  private final Backend own; // the overlapped worker's backend; null inline
  private final RefreshWorker pool; // null inline
  private final int n; // floats of a refresh: hot rows x layer 0's width
  private final Landing embeddings;
  private float[] host; // the overlapped worker's result
  private long publishedVersion = -1;
  private Future<?> pending;
  private Future<?> pendingBackward; // overlapped: the deferred backward of the version before
  private long pendingVersion = -1;
  private long maxAge = -1;
  private long refreshNanos;
  private int refreshes;
  private boolean uploaded; // by the worker thread only
  private final boolean deferred;
  private final boolean inputs; // the cache holds layer 0's aggregated inputs, not its outputs
  private final int numParams;
  private ReusedGradients sink; // the output gradient of the rows read from the published version
  private final Landing gradients; // layer 0's deferred gradient the current steps spread
  private final Landing paramsOf; // inline: the parameters of the pending and published versions
  private float[] pendingParams; // overlapped: the parameters of the pending version
  private float[] publishedParams; // overlapped: those of the published version
  private float[] sinkHost; // overlapped: the sum handed to the worker
  private float[] gradHost; // overlapped: the worker's deferred gradient
  private FloatTensor workerSink; // overlapped: the handed-over sum on the worker's backend

  HotRefresh(GnnModel model, HotSet set, HotReuse reuse, long seed) {
    this.seed = seed;
    if (reuse.autoStaleness()) {
      throw new IllegalArgumentException("resolve the staleness from the epoch first");
    }
    this.set = set;
    this.reuse = reuse;
    this.be = model.backend();
    this.inputs = reuse.reusesInputs();
    if (inputs && model.config().kind() != ModelKind.SAGE) {
      throw new IllegalArgumentException(
          "reuse-rows inputs keeps GraphSAGE's aggregated inputs and needs model sage, got "
              + model.config().kind().id()
              + "; use reuse-rows outputs");
    }
    this.n = Math.multiplyExact(set.size(), model.reusedRowWidth(inputs));
    this.deferred = reuse.deferredBackward(); // never with inputs: HotReuse refuses that
    this.numParams = model.numParams();
    this.embeddings = new Landing(be, n);
    this.gradients = new Landing(be, numParams);
    this.paramsOf = new Landing(be, numParams);
    if (deferred) {
      sink = new ReusedGradients(be, set.size(), model.layerOutDim(0));
    }
    boolean inline = reuse.inlineOn(model.backend());
    this.lag = reuse.lag(inline);
    this.period = reuse.period(inline);
    if (inline) {
      this.own = null;
      this.pool = null;
      this.worker = new GnnModel(model.config(), model.backend());
    } else {
      this.own = model.backend() instanceof CpuBackend cpu ? cpu.sibling() : new CpuBackend();
      this.worker = new GnnModel(model.config(), own);
      this.pool = new RefreshWorker("fanout-hot-refresh");
    }
  }

  /**
   * Called before step {@code step} (the optimizer's step count) with the parameters that step
   * uses: lands the refresh due now, starts the next one when one is due, and returns the
   * embeddings the step reuses (at most S steps old). The first call of a run has none yet: it
   * computes them from this step's parameters and waits for them (age 0), so every step reuses.
   */
  FloatTensor beforeStep(long step, GnnModel model) {
    if (pending != null && step == pendingVersion + lag) {
      land();
    }
    if (embeddings.published == null) {
      pendingVersion = step;
      pending = start(model);
      land();
    } else if (step % period == 0) {
      pendingVersion = step;
      pending = start(model);
      if (lag == 0) {
        land();
      }
    }
    maxAge = Math.max(maxAge, step - publishedVersion);
    return embeddings.published;
  }

  private void land() {
    await();
    if (deferred) {
      if (pendingBackward != null) { // overlapped: the backward started at the previous landing
        await(pendingBackward);
        pendingBackward = null;
        gradients.land(gradHost);
      }
      if (publishedVersion >= 0) {
        backwardPublished();
      }
      if (pool == null) {
        paramsOf.land(null);
      } else {
        publishedParams = pendingParams;
      }
    }
    embeddings.land(host);
    publishedVersion = pendingVersion;
  }

  /**
   * The deferred backward of the version being replaced: the steps that read it are done, so the
   * sink holds exactly their reused rows' gradient. Layer 0 is computed again at that version's
   * parameters and masks (the worker's state is a later refresh's by now) and the sum taken back
   * through it. Inline the result lands now, for the steps that read the refresh landing now;
   * overlapped the worker computes it and it lands with the next refresh.
   */
  private void backwardPublished() {
    long key = dropoutKey(seed, publishedVersion);
    if (pool == null) {
      long t0 = System.nanoTime();
      be.copy(paramsOf.published, 0, worker.paramTensor(), 0, numParams);
      compute(key);
      worker.backwardUploadedLayer(0, sink.sum());
      be.copy(worker.gradTensor(), 0, gradients.spare(), 0, numParams);
      sink.clear();
      be.sync();
      refreshNanos += System.nanoTime() - t0;
      gradients.land(null);
      return;
    }
    sinkHost = sinkHost == null ? new float[n] : sinkHost;
    be.download(sink.sum(), 0, sinkHost, 0, n);
    sink.clear();
    float[] params = publishedParams;
    pendingBackward =
        pool.submit(
            () -> {
              long t0 = System.nanoTime();
              gradHost = gradHost == null ? new float[numParams] : gradHost;
              worker.loadParams(params);
              compute(key);
              worker.backwardUploadedLayer(0, deferredSum());
              worker.backend().download(worker.gradTensor(), 0, gradHost, 0, numParams);
              refreshNanos += System.nanoTime() - t0;
              return null;
            });
  }

  /**
   * Where a step appends its reused rows' output gradients (by slot, as the embeddings are
   * indexed), or null without a deferred backward.
   */
  ReusedGradients gradientSink() {
    return sink;
  }

  /**
   * Adds a period-th ({@link HotReuse#period(boolean)}) of the deferred layer-0 gradient that
   * landed with the embeddings in use to {@code grads} (the model's, aligned with its parameters);
   * a no-op without a deferred backward or before the first one lands.
   */
  void addDeferredGradient(FloatTensor grads) {
    if (gradients.published != null) {
      be.axpy(numParams, 1f / period, gradients.published, 0, grads, 0);
    }
  }

  /**
   * Inline: computes into {@code spare} now, the parameters copied on the device. Overlapped: the
   * worker computes into {@code host} from a host copy of them.
   */
  private Future<?> start(GnnModel model) {
    long key = dropoutKey(seed, pendingVersion);
    if (pool == null) {
      long t0 = System.nanoTime();
      be.copy(model.paramTensor(), 0, worker.paramTensor(), 0, model.numParams());
      if (deferred) {
        be.copy(model.paramTensor(), 0, paramsOf.spare(), 0, numParams);
      }
      FloatTensor y = compute(key);
      be.copy(y, 0, embeddings.spare(), 0, n);
      be.sync(); // so that the refresh's time is its own, not the next step's
      done(t0);
      return CompletableFuture.completedFuture(null);
    }
    float[] params = model.params();
    pendingParams = params;
    return pool.submit(
        () -> {
          long t0 = System.nanoTime();
          worker.loadParams(params);
          FloatTensor y = compute(key);
          if (host == null) {
            host = new float[n];
          }
          worker.backend().download(y, 0, host, 0, n);
          done(t0);
          return null;
        });
  }

  /** Overlapped, on the worker thread: the handed-over sum on the worker's backend. */
  private FloatTensor deferredSum() {
    workerSink = TensorBufs.ensure(worker.backend(), workerSink, n);
    worker.backend().upload(sinkHost, 0, workerSink, 0, n);
    return workerSink;
  }

  private FloatTensor compute(long key) {
    if (!uploaded) {
      // the block and its rows never change: up once, then every refresh only computes
      worker.allowSparseInput(!inputs);
      worker.uploadLayerInput(0, set.block(), set.features());
      uploaded = true;
    }
    return inputs
        ? worker.layerZeroInputRows(true, key)
        : worker.forwardUploadedLayer(0, true, key);
  }

  /**
   * The dropout key of the refresh that takes step {@code step}'s parameters: its embeddings are
   * layer 0 as a training step computes it, with masks fixed per refresh.
   */
  static long dropoutKey(long seed, long step) {
    return CounterRng.key(seed, 0x407, step, 0);
  }

  private void done(long t0) {
    refreshNanos += System.nanoTime() - t0;
    refreshes++;
  }

  private void await() {
    await(pending);
    pending = null;
  }

  /** The staleness bound in steps this cache keeps (resolved when it was auto). */
  int staleness() {
    return reuse.staleness();
  }

  /**
   * Whether the cache holds layer 0's aggregated inputs ({@link io.fanout.nn.ReusedRows#inputs}).
   */
  boolean inputs() {
    return inputs;
  }

  /** Whether refreshes run on the training thread and backend. */
  boolean inline() {
    return pool == null;
  }

  /** The backend the refreshes compute on. */
  Backend workerBackend() {
    return worker.backend();
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
    return pool == null ? 0 : pool.waitNanos() / 1e9;
  }

  int refreshes() {
    return refreshes;
  }

  /** Waits for {@code f}: a worker's refresh; inline, one computed already (nothing to wait). */
  private void await(Future<?> f) {
    if (pool != null) {
      pool.await(f);
    }
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.stop(pending, pendingBackward);
    }
    pending = pendingBackward = null;
    try {
      embeddings.free();
      if (sink != null) {
        sink.close();
        sink = null;
      }
      gradients.free();
      paramsOf.free();
      if (workerSink != null) {
        TensorBufs.free(worker.backend(), workerSink);
        workerSink = null;
      }
      worker.close();
    } finally {
      if (own != null) {
        own.close();
      }
    }
  }

  /**
   * Two tensors of {@code n} floats on the trainer's backend: the one steps read ({@code
   * published}) and the one the next refresh lands in ({@code spare}, which no step reads).
   */
  private static final class Landing {
    private final Backend be;
    private final int n;
    FloatTensor published;
    private FloatTensor spare;

    Landing(Backend be, int n) {
      this.be = be;
      this.n = n;
    }

    FloatTensor spare() {
      spare = TensorBufs.ensure(be, spare, n);
      return spare;
    }

    /** Publishes the spare, first filled from {@code host} when that is not null. */
    void land(float[] host) {
      if (host != null) {
        be.upload(host, 0, spare(), 0, n);
      }
      FloatTensor done = spare;
      spare = published;
      published = done;
    }

    void free() {
      TensorBufs.free(be, published);
      TensorBufs.free(be, spare);
      published = spare = null;
    }
  }
}
