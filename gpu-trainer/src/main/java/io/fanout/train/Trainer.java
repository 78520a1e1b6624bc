package io.fanout.train;

import io.fanout.nn.Adam;
import io.fanout.nn.BatchTensors;
import io.fanout.nn.Block;
import io.fanout.nn.GnnModel;
import io.fanout.nn.ModelConfig;
import io.fanout.nn.ReusedRows;
import io.fanout.sample.MiniBatch;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.FeatureRows;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.LossReadback;
import io.fanout.tensor.TensorBufs;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * Synchronous mini-batch training of a {@link GnnModel}.
 *
 * <p>Step API, for data-parallel drivers: {@link #step} runs forward, loss, backward, then {@link
 * GradientReducer#allReduceMean} over the model's whole flat gradient array (exactly once per
 * step), then the Adam update. Every replica therefore applies identical updates. {@link
 * #trainEpoch} runs the steps of one epoch's stream; {@link #fit} adds checkpoints, resume and
 * metrics (written by {@link ModelDirFiles}, checked against the run by {@link RunIdentity});
 * {@link Evaluation#accuracy(GnnModel, BatchStream)} measures accuracy on a stream without touching
 * the parameters. Reuse of hot embeddings runs behind a {@link StepHook} ({@link HotReuseHook}).
 *
 * <p>A model with a learned input table ({@link GnnModel#embeddings()}) reads each batch's input
 * rows from the table when the step runs (so every step sees the rows the steps before it wrote),
 * and after the dense update applies one sparse Adam step to the rows the batch touched ({@link
 * GnnModel#updateEmbeddings}). With several replicas the rows' gradients are averaged over them as
 * the dense ones are ({@link SparseRowReduction}), so every replica's table stays the same.
 *
 * <p>Determinism: parameters are initialized from {@code seed}; dropout masks are a pure function
 * of (seed, epoch, batch index from the shard, layer, position); all reductions run in a fixed
 * order. The same seed, batches and thread count give bit-identical parameters.
 */
public final class Trainer implements AutoCloseable {
  private final GnnModel model;
  private final TrainOptions opts;
  private final GradientReducer reducer;
  private final Adam adam;
  private final Backend be;
  private FloatTensor probs;
  private FloatTensor dLogits;
  private final GradientExchange exchange;
  private FeatureRows featureRows;
  private float[] hostEmb; // link prediction: the seeds' embeddings and their gradient, on the host
  private float[] hostDEmb;
  private double bestVal = -1;
  private int bestEpochs; // epochs after which bestVal came (0: none)
  private EarlyStop earlyStop = EarlyStop.OFF;
  private BooleanSupplier cancelled = () -> false;
  private HotReuseHook hotReuse; // null: no reuse
  private final ReusedRows reused = new ReusedRows();

  public Trainer(GnnModel model, TrainOptions opts, GradientReducer reducer) {
    this.model = model;
    this.opts = opts;
    this.reducer = reducer;
    this.be = model.backend();
    this.exchange = new GradientExchange(be, reducer);
    this.adam = new Adam(be, model.numParams(), opts.weightDecay());
  }

  /**
   * Makes training stop before the next step once {@code check} returns true: {@link #trainEpoch}
   * (and so {@link #fit}) then throws {@link TrainCancelledException}. Checked once per batch, so
   * it must be cheap; checkpoints already written stay complete.
   */
  public Trainer cancelWhen(BooleanSupplier check) {
    this.cancelled = Objects.requireNonNull(check, "check");
    return this;
  }

  /**
   * Ends {@link #fit} once {@code stop.patience()} epochs in a row bring no better validation
   * accuracy ({@link EarlyStop}; off by default); {@link #fit} then needs validation batches on
   * rank 0. Rank 0 decides from its validation and hands the decision to the other replicas through
   * the reducer after every epoch, so that all stop after the same epoch.
   */
  public Trainer stopEarly(EarlyStop stop) {
    this.earlyStop = Objects.requireNonNull(stop, "stop");
    return this;
  }

  /**
   * Reads the input features of batches that come without them (a loader that does not gather) from
   * {@code rows} on the backend ({@code --feature-access zero-copy}); null: every batch brings its
   * features. The caller keeps ownership of {@code rows}.
   */
  public Trainer readFeaturesFrom(FeatureRows rows) {
    this.featureRows = rows;
    return this;
  }

  /**
   * Turns on reuse of hot vertices' bottom-layer embeddings for {@link #fit} and {@link
   * #trainEpoch} ({@link HotReuse}; off by default). The hot set is selected from epoch 0 of the
   * training data when training starts (or by {@link #prepareReuse}).
   *
   * @param numVertices vertices of the graph
   * @param inDegree in-degree of a vertex, for {@link HotReuse#IN_DEGREE} (may be null otherwise)
   */
  public Trainer reuseHot(
      HotReuse reuse, int numVertices, java.util.function.IntToLongFunction inDegree) {
    this.hotReuse = new HotReuseHook(model, reuse, numVertices, inDegree, opts.seed());
    return this;
  }

  /**
   * Selects the hot set from epoch 0 of {@code data} and starts the refresh worker (a no-op without
   * reuse or when already prepared). {@link #fit} calls it; a caller of {@link #trainEpoch} calls
   * it first.
   */
  public void prepareReuse(EpochData data) {
    hook().beforeFit(data, featureRows);
  }

  /** The step hook of this trainer's reuse, or {@link StepHook#NONE}. */
  private StepHook hook() {
    return hotReuse == null ? StepHook.NONE : hotReuse;
  }

  /** Stops the refresh worker and drops the hot set; {@link #fit} does it when it returns. */
  public void endReuse() {
    hook().afterFit();
  }

  /**
   * Opens epoch {@code epoch} of {@code data} for {@link #trainEpoch}: with reuse on (after {@link
   * #prepareReuse}), its loader prunes each batch for the hot rows before gathering its features;
   * otherwise as {@link EpochData#open(int)}. A stream opened directly works too; its batches are
   * then pruned by the trainer, after the gather, into the same blocks and features.
   */
  public BatchStream open(EpochData data, int epoch) {
    return hook().open(data, epoch);
  }

  /** The hot set in use, or null without reuse (or before {@link #prepareReuse}). */
  public HotSet hotSet() {
    return hotReuse == null ? null : hotReuse.hotSet();
  }

  /**
   * What reuse avoided and cost so far, for reports (empty without reuse). Counted on the batches
   * as they arrive: one sampled with its hot rows left out ({@link #open} on {@link SampledEpochs})
   * counts the hot rows it prunes, not the edges and rows it never sampled.
   */
  public Map<String, Object> reuseStats() {
    return hotReuse == null ? new LinkedHashMap<>() : hotReuse.stats();
  }

  /** The oldest reused embedding any step has read, in steps (-1: none). */
  int maxReusedAge() {
    return hotReuse == null ? -1 : hotReuse.maxAge();
  }

  public GnnModel model() {
    return model;
  }

  /**
   * Frees the trainer's tensors (optimizer state, loss buffers) and its host gradient buffer; the
   * model stays.
   */
  @Override
  public void close() {
    endReuse();
    exchange.close();
    adam.close();
    TensorBufs.free(be, probs);
    TensorBufs.free(be, dLogits);
    probs = null;
    dLogits = null;
  }

  public Adam optimizer() {
    return adam;
  }

  public TrainOptions options() {
    return opts;
  }

  /** The counter-based key of one batch's random choices. */
  public static long batchKey(long seed, int epoch, int batch) {
    return CounterRng.key(seed, 0xD0, epoch, batch);
  }

  /**
   * One synchronous step on {@code b} at learning rate {@code lr}: forward, mean cross-entropy over
   * the batch's labeled seeds, backward, gradient all-reduce, Adam update.
   */
  public StepStats step(TrainBatch b, int epoch, float lr) {
    return step(b, epoch, lr, StepHook.NONE).stats();
  }

  /**
   * As {@link #step(TrainBatch, int, float)}, without waiting for the device: the step's work is
   * queued and its loss and correct count are read when {@link QueuedStep#stats} is called. Read a
   * step's stats after queueing the next one, as {@link #trainEpoch} does, so the host never waits
   * for the device between two steps.
   */
  public QueuedStep queueStep(TrainBatch b, int epoch, float lr) {
    return step(b, epoch, lr, StepHook.NONE);
  }

  /** A step whose loss and correct count may still be computing: {@link #stats} waits for them. */
  public record QueuedStep(LossReadback readback, int labeled, StepStats done) {
    static QueuedStep of(StepStats s) {
      return new QueuedStep(null, s.labeled(), s);
    }

    /** The step's stats, waiting for the device when they are not read back yet. */
    public StepStats stats() {
      return done != null ? done : new StepStats(readback.lossSum(), labeled, readback.correct());
    }
  }

  /**
   * As {@link #step(TrainBatch, int, float)}, with {@code hook} uploading the batch (null from it:
   * as it comes) and told when the backward is done; the loss is read back later.
   */
  private QueuedStep step(TrainBatch b, int epoch, float lr, StepHook hook) {
    MiniBatch mb = b.batch();
    checkBatch(mb, b.dim());
    int rows = mb.numSeeds();
    int classes = model.config().classes();
    int[] labels = mb.labels();
    reused.clear();
    if (b.prunedFor != null && b.pruner.active() && b.prunedFor != hook.stepHotSet()) {
      throw new IllegalStateException(
          "batch " + mb.batch() + " was pruned for a hot set this step does not reuse");
    }
    BatchTensors t = hook.upload(b, featureRows, labels, rows, reused);
    if (t == null) {
      t = upload(model, featureRows, b, labels, rows);
    }
    FloatTensor logits = model.forward(t, true, batchKey(opts.seed(), epoch, mb.batch()), reused);
    if (mb.pairs() != null) {
      // Link prediction: the outputs are the seeds' embeddings and the loss is per pair, computed
      // on the host (rows x dim down, its gradient up).
      int n = rows * classes;
      hostEmb = ensureHost(hostEmb, n);
      hostDEmb = ensureHost(hostDEmb, n);
      be.download(logits, 0, hostEmb, 0, n);
      model.zeroGrad(); // before the loss: an MLP decoder accumulates its gradients there
      StepStats s = LinkStep.lossAndGrad(model, hostEmb, rows, classes, mb.pairs(), hostDEmb);
      dLogits = TensorBufs.ensure(be, dLogits, (long) n);
      be.upload(hostDEmb, 0, dLogits, 0, n);
      model.backward(dLogits);
      hook.afterBackward();
      exchangeGradients();
      adam.update(model.paramTensor(), model.gradTensor(), lr);
      updateLearned(mb, lr);
      return QueuedStep.of(s);
    }
    int labeled = 0;
    for (int i = 0; i < rows; i++) {
      if (labels[i] >= 0) {
        labeled++;
      }
    }
    probs = TensorBufs.ensure(be, probs, (long) rows * classes);
    dLogits = TensorBufs.ensure(be, dLogits, (long) rows * classes);
    LossReadback loss =
        be.softmaxCrossEntropyDeferred(
            logits, rows, classes, t.labels(), probs, dLogits, labeled == 0 ? 0f : 1f / labeled);
    model.zeroGrad();
    model.backward(dLogits);
    hook.afterBackward();
    exchangeGradients();
    adam.update(model.paramTensor(), model.gradTensor(), lr);
    updateLearned(mb, lr);
    return new QueuedStep(loss, labeled, null);
  }

  /**
   * The sparse Adam step of the learned table over the batch's input rows (none without one); with
   * several replicas over the union of their rows, with the mean of their gradients ({@link
   * SparseRowReduction}), so that every replica's table stays the same.
   */
  private void updateLearned(MiniBatch mb, float lr) {
    if (model.embeddings() == null) {
      return;
    }
    int n = mb.layerSize(mb.layers());
    SparseRowReduction.update(
        reducer, model.embeddings(), mb.nodes(), n, model.inputGradient(n), lr);
  }

  private static float[] ensureHost(float[] a, int n) {
    return a != null && a.length >= n ? a : new float[n];
  }

  /**
   * The batch on the backend: its features from the host array, or, when it comes without (a loader
   * that does not gather), the ids of its nodes with the rows read by {@code featureRows}; a model
   * with a learned input reads its rows from its table ({@link GnnModel#uploadLearned}).
   */
  static BatchTensors upload(
      GnnModel model, FeatureRows featureRows, TrainBatch b, int[] labels, int rows) {
    MiniBatch mb = b.batch();
    if (model.embeddings() != null) {
      return model.uploadLearned(Block.of(mb), mb.nodes(), labels, rows);
    }
    if (b.features() != null) {
      return model.upload(Block.of(mb), b.features(), labels, rows);
    }
    if (featureRows == null) {
      throw new IllegalStateException(
          "batch " + mb.batch() + " came without features and no feature rows were given");
    }
    if (b.slots() != null) {
      // rows read in place from the feature cache's slots, which the next batch may overwrite
      BatchTensors t = model.upload(Block.of(mb), b.slots(), featureRows, labels, rows);
      model.backend().sync();
      b.releaseSlots();
      return t;
    }
    return model.upload(Block.of(mb), mb.nodes(), featureRows, labels, rows);
  }

  /** Replaces the gradients with their mean over the replicas ({@link GradientExchange}). */
  private void exchangeGradients() {
    exchange.meanOf(model.gradTensor(), model.numParams());
  }

  private void checkBatch(MiniBatch mb, int dim) {
    ModelConfig c = model.config();
    if (mb.layers() != c.layers()) {
      throw new InvalidInputException(
          "batch "
              + mb.batch()
              + " of epoch "
              + mb.epoch()
              + " has "
              + mb.layers()
              + " hops but the model has "
              + c.layers()
              + " layers; sample with as many fanouts as layers");
    }
    if (dim != c.inDim()) {
      throw new InvalidInputException(
          "batch features have dimension " + dim + " but the model expects " + c.inDim());
    }
    for (int l : mb.pairs() != null ? new int[0] : mb.labels()) {
      if (l >= c.classes()) {
        throw new InvalidInputException(
            "batch "
                + mb.batch()
                + " has label "
                + l
                + " but the model has "
                + c.classes()
                + " classes");
      }
    }
  }

  /**
   * Trains one epoch over {@code stream}. Prints progress to {@code progress} (may be null) every
   * {@code logEvery} batches.
   */
  public EpochStats trainEpoch(
      int epoch, BatchStream stream, float lr, PrintStream progress, int logEvery) {
    return trainEpoch(epoch, -1, stream, lr, TrainProgress.printing(progress, logEvery));
  }

  /**
   * Trains one epoch over {@code stream}, reporting every step to {@code progress}.
   *
   * @param batches the epoch's steps for the report, or -1 when not known
   */
  public EpochStats trainEpoch(
      int epoch, int batches, BatchStream stream, float lr, TrainProgress progress) {
    long t0 = System.nanoTime();
    double loss = 0;
    long labeled = 0;
    long correct = 0;
    int steps = 0;
    QueuedStep queued = null;
    TrainBatch b;
    while (true) {
      b = stream.next();
      if (b != null && cancelled.getAsBoolean()) {
        throw new TrainCancelledException(
            "training cancelled in epoch "
                + epoch
                + " after "
                + (steps + (queued == null ? 0 : 1))
                + " batch(es)");
      }
      QueuedStep previous = queued;
      queued = null;
      if (b != null) {
        StepHook hook = hook();
        hook.beforeStep(adam.step(), model);
        queued = step(b, epoch, lr, hook);
        stream.recycle(b);
      }
      if (previous != null) { // read back after the next step is queued
        StepStats s = previous.stats();
        loss += s.lossSum();
        labeled += s.labeled();
        correct += s.correct();
        steps++;
        if (progress != TrainProgress.NONE) {
          progress.batchDone(
              new TrainProgress.Batch(
                  epoch,
                  opts.epochs(),
                  steps,
                  batches,
                  labeled == 0 ? 0 : loss / labeled,
                  labeled,
                  (System.nanoTime() - t0) / 1e9,
                  stream.waitNanos() / 1e9));
        }
      }
      if (b == null) {
        break;
      }
    }
    double sec = (System.nanoTime() - t0) / 1e9;
    if (steps == 0) {
      throw new InvalidInputException("epoch " + epoch + " has no batches: empty shard set");
    }
    return new EpochStats(
        epoch,
        labeled == 0 ? 0 : loss / labeled,
        labeled == 0 ? 0 : (double) correct / labeled,
        steps,
        labeled,
        sec,
        stream.waitNanos() / 1e9,
        lr);
  }

  /**
   * Trains up to {@link TrainOptions#epochs()} with a checkpoint after every epoch.
   *
   * <p>With validation data, the epoch of best validation accuracy is also saved as {@link
   * Checkpoint#BEST} (written before {@code checkpoint.bin}, so a resumed run knows it). With
   * {@link #stopEarly} training ends before {@link TrainOptions#epochs()} once that many epochs in
   * a row bring no better validation accuracy; the last epoch's metrics line says so, and a resumed
   * run of a stopped one trains nothing.
   *
   * <p>An existing checkpoint in {@code modelDir} is continued when {@code resume} is true (after
   * checking that its model, options and {@code identity} equal this run's) and refused otherwise.
   * Rank 0 writes the checkpoint and appends a line per epoch to {@link ModelDirFiles#METRICS}.
   *
   * @param identity what ties the run to its inputs, e.g. the graph store fingerprint
   * @param val validation batches per epoch, or null
   */
  public List<EpochStats> fit(
      EpochData train,
      EpochData val,
      Path modelDir,
      boolean resume,
      Map<String, String> identity,
      PrintStream progress,
      int logEvery) {
    return fit(train, val, modelDir, resume, identity, TrainProgress.printing(progress, logEvery));
  }

  /**
   * As {@link #fit(EpochData, EpochData, Path, boolean, Map, PrintStream, int)}, reporting to
   * {@code progress} and, on rank 0, to the {@link TrainProgress#register registered} listeners.
   */
  public List<EpochStats> fit(
      EpochData train,
      EpochData val,
      Path modelDir,
      boolean resume,
      Map<String, String> identity,
      TrainProgress given) {
    TrainProgress progress =
        reducer.rank() == 0 ? TrainProgress.both(given, TrainProgress.registered()) : given;
    try {
      return fitEpochs(train, val, modelDir, resume, identity, progress);
    } finally {
      endReuse();
      progress.finished();
    }
  }

  private List<EpochStats> fitEpochs(
      EpochData train,
      EpochData val,
      Path modelDir,
      boolean resume,
      Map<String, String> identity,
      TrainProgress progress) {
    if (earlyStop.on() && val == null && reducer.rank() == 0) {
      throw earlyStop.needsValidation("give validation batches (--val-shards)");
    }
    Map<String, String> meta = RunIdentity.of(model.config(), opts, hook(), identity);
    int start = 0;
    Checkpoint ck = ModelDirFiles.toContinue(modelDir, resume);
    if (ck != null) {
      RunIdentity.checkSameRun(modelDir, ck.meta(), meta);
      model.loadParams(ck.params());
      ModelDirFiles.readEmbeddings(modelDir, ck, model);
      adam.load(ck.firstMoment(), ck.secondMoment(), ck.step());
      start = ck.epochs();
      bestVal = ModelDirFiles.bestVal(ck);
      bestEpochs = ModelDirFiles.bestEpochs(modelDir, ck);
    } else {
      model.init(opts.seed());
      bestVal = -1;
      bestEpochs = 0;
    }
    if (reducer.rank() == 0) {
      ModelDirFiles.keepMetricsBefore(modelDir, start);
    }
    // a run that stopped early trains no further (every replica reads the same checkpoint)
    boolean stopped = earlyStop.endsEarlyAfter(start, bestEpochs, opts.epochs());
    int end = stopped ? start : opts.epochs();
    if (start < end) {
      prepareReuse(train);
    }
    progress.started(start, opts.epochs());
    if (stopped) {
      progress.stoppedEarly(start - 1, bestEpochs - 1, earlyStop.patience());
    }
    List<EpochStats> out = new ArrayList<>();
    OpenedEpoch next = start < end ? OpenedEpoch.of(this, train, start) : null;
    try {
      for (int e = start; e < end; e++) {
        float lr = opts.schedule().lr(opts.lr(), e, opts.epochs());
        OpenedEpoch cur = next;
        // The next epoch's loader starts reading now, so epoch boundaries do not stall the steps.
        next = e + 1 < end ? OpenedEpoch.of(this, train, e + 1) : null;
        EpochStats s;
        int batches = train.batches(e);
        progress.epochStarted(e, opts.epochs(), batches);
        try (BatchStream stream = cur.get()) {
          s = trainEpoch(e, batches, stream, lr, progress);
        }
        if (epochDone(e, s, val, modelDir, meta, progress, out)) {
          break;
        }
      }
    } finally {
      if (next != null) {
        next.close();
      }
    }
    return out;
  }

  /**
   * Validates epoch {@code e} and writes its checkpoints and metrics line; returns whether {@link
   * EarlyStop} ends training after it, the same on every replica.
   */
  private boolean epochDone(
      int e,
      EpochStats s,
      EpochData val,
      Path modelDir,
      Map<String, String> meta,
      TrainProgress progress,
      List<EpochStats> out) {
    Accuracy va = null;
    if (val != null) {
      try (BatchStream vs = val.open(e)) {
        va = Evaluation.accuracy(model, vs, featureRows);
      }
    }
    out.add(s);
    boolean stop = false;
    if (reducer.rank() == 0) {
      boolean improved = va != null && va.value() > bestVal;
      if (improved) {
        bestVal = va.value();
        bestEpochs = e + 1;
      }
      stop = earlyStop.endsEarlyAfter(e + 1, bestEpochs, opts.epochs());
      ModelDirFiles.appendMetrics(modelDir, s, va, stop ? bestEpochs - 1 : -1);
      if (improved) {
        ModelDirFiles.writeBest(modelDir, meta, e + 1, model, adam);
      }
      ModelDirFiles.writeLast(modelDir, meta, bestVal, bestEpochs, e + 1, model, adam);
    }
    if (earlyStop.on()) {
      stop = fromRankZero(stop);
    }
    progress.epochEnded(s, opts.epochs(), va);
    if (stop) {
      progress.stoppedEarly(e, bestEpochs - 1, earlyStop.patience());
    }
    return stop;
  }

  /**
   * Rank 0's {@code stop} and {@link #bestEpochs} on every replica, through one all-reduce of two
   * floats (rank 0 adds them times the world size, the others zeros, so the mean is exact); as it
   * is with one replica.
   */
  private boolean fromRankZero(boolean stop) {
    int world = reducer.worldSize();
    if (world == 1) {
      return stop;
    }
    boolean root = reducer.rank() == 0;
    float[] said = {root && stop ? world : 0f, root ? (float) bestEpochs * world : 0f};
    reducer.allReduceMean(said, said.length);
    bestEpochs = (int) said[1];
    return said[0] > 0f;
  }
}
