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
import io.fanout.tensor.HostFloats;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.TensorBufs;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;

/**
 * Synchronous mini-batch training of a {@link GnnModel}.
 *
 * <p>Step API, for data-parallel drivers: {@link #step} runs forward, loss, backward, then {@link
 * GradientReducer#allReduceMean} over the model's whole flat gradient array (exactly once per
 * step), then the Adam update. Every replica therefore applies identical updates. {@link
 * #trainEpoch} runs the steps of one epoch's stream; {@link #fit} adds checkpoints, resume and
 * metrics; {@link #evaluate} measures accuracy on a stream without touching the parameters.
 *
 * <p>Determinism: parameters are initialized from {@code seed}; dropout masks are a pure function
 * of (seed, epoch, batch index from the shard, layer, position); all reductions run in a fixed
 * order. The same seed, batches and thread count give bit-identical parameters.
 */
public final class Trainer implements AutoCloseable {
  /** Metrics file in the model directory: one JSON object per epoch. */
  public static final String METRICS = "metrics.jsonl";

  private final GnnModel model;
  private final TrainOptions opts;
  private final GradientReducer reducer;
  private final Adam adam;
  private final Backend be;
  private FloatTensor probs;
  private FloatTensor dLogits;
  private HostFloats hostGrads;
  private FeatureRows featureRows;
  private float[] hostEmb; // link prediction: the seeds' embeddings and their gradient, on the host
  private float[] hostDEmb;
  private double bestVal = -1;
  private BooleanSupplier cancelled = () -> false;
  private HotReuse reuse = HotReuse.OFF;
  private int reuseVertices;
  private java.util.function.IntToLongFunction inDegree;
  private HotSet hotSet;
  private HotRefresh refresh;
  private final HotPruner pruner = new HotPruner();
  private final ReusedRows reused = new ReusedRows();
  private float[] compacted; // features of a batch pruned here (not by its loader)
  private long bottomRows;
  private long bottomEdges;
  private long bottomSources;
  private long rowsAvoided;
  private long edgesAvoided;
  private long sourcesAvoided;

  public Trainer(GnnModel model, TrainOptions opts, GradientReducer reducer) {
    this.model = model;
    this.opts = opts;
    this.reducer = reducer;
    this.be = model.backend();
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
    this.reuse = Objects.requireNonNull(reuse, "reuse");
    this.reuseVertices = numVertices;
    this.inDegree = inDegree;
    if (reuse.hotBy().equals(HotReuse.IN_DEGREE) && inDegree == null) {
      throw new IllegalArgumentException("hot-by in-degree needs the graph's in-degrees");
    }
    return this;
  }

  /**
   * Selects the hot set from epoch 0 of {@code data} and starts the refresh worker (a no-op without
   * reuse or when already prepared). {@link #fit} calls it; a caller of {@link #trainEpoch} calls
   * it first.
   */
  public void prepareReuse(EpochData data) {
    if (!reuse.enabled() || hotSet != null) {
      return;
    }
    hotSet = HotSet.build(data, reuse, reuseVertices, inDegree, this::readRows);
    if (hotSet.size() > 0) {
      refresh = new HotRefresh(model, hotSet, reuse.resolve(hotSet.epochBatches()), opts.seed());
      if (refresh.inputs()) {
        model.allowSparseInput(false);
      }
    }
  }

  /**
   * The input rows of {@code ids[0 .. n)} read through the feature rows on the backend, for a hot
   * set whose batches come without features; a chunk at a time, so the backend holds little at
   * once.
   */
  private void readRows(int[] ids, int n, float[] out) {
    if (featureRows == null) {
      throw new IllegalStateException(
          "batches came without features and no feature rows were given");
    }
    int dim = featureRows.dim();
    int chunk = Math.max(1, Math.min(n, (16 << 20) / Math.max(1, dim)));
    IntTensor idT = null;
    FloatTensor rowT = null;
    try {
      idT = be.allocInt(chunk);
      rowT = be.allocFloat(chunk * dim);
      for (int from = 0; from < n; from += chunk) {
        int rows = Math.min(chunk, n - from);
        be.upload(ids, from, idT, 0, rows);
        featureRows.gather(idT, 0, rows, rowT, 0);
        be.download(rowT, 0, out, from * dim, rows * dim);
      }
    } finally {
      TensorBufs.free(be, rowT);
      TensorBufs.free(be, idT);
    }
  }

  /** Stops the refresh worker and drops the hot set; {@link #fit} does it when it returns. */
  public void endReuse() {
    if (refresh != null) {
      refresh.close();
      refresh = null;
    }
    hotSet = null;
  }

  /**
   * Opens epoch {@code epoch} of {@code data} for {@link #trainEpoch}: with reuse on (after {@link
   * #prepareReuse}), its loader prunes each batch for the hot rows before gathering its features;
   * otherwise as {@link EpochData#open(int)}. A stream opened directly works too; its batches are
   * then pruned by the trainer, after the gather, into the same blocks and features.
   */
  public BatchStream open(EpochData data, int epoch) {
    return refresh == null ? data.open(epoch) : data.open(epoch, null, hotSet);
  }

  /** The hot set in use, or null without reuse (or before {@link #prepareReuse}). */
  public HotSet hotSet() {
    return hotSet;
  }

  /**
   * What reuse avoided and cost so far, for reports (empty without reuse). Counted on the batches
   * as they arrive: one sampled with its hot rows left out ({@link #open} on {@link SampledEpochs})
   * counts the hot rows it prunes, not the edges and rows it never sampled.
   */
  public Map<String, Object> reuseStats() {
    Map<String, Object> m = new LinkedHashMap<>();
    if (refresh == null) {
      return m;
    }
    m.put("hot_vertices", hotSet.size());
    m.put("bottom_rows", bottomRows);
    m.put("bottom_edges", bottomEdges);
    m.put("feature_rows", bottomSources);
    m.put("bottom_rows_avoided", rowsAvoided);
    m.put("bottom_edges_avoided", edgesAvoided);
    m.put("feature_rows_avoided", sourcesAvoided);
    m.put("bottom_rows_avoided_fraction", ratio(rowsAvoided, bottomRows));
    m.put("bottom_edges_avoided_fraction", ratio(edgesAvoided, bottomEdges));
    m.put("feature_rows_avoided_fraction", ratio(sourcesAvoided, bottomSources));
    m.put("reuse_refresh", refresh.inline() ? HotReuse.INLINE : HotReuse.OVERLAPPED);
    m.put("reuse_backward", reuse.backward());
    m.put("reuse_rows", reuse.rows());
    m.put("staleness_steps", refresh.staleness());
    m.put("refreshes", refresh.refreshes());
    m.put("refresh_seconds", refresh.refreshSeconds());
    m.put("refresh_wait_seconds", refresh.waitSeconds());
    m.put("max_embedding_age_steps", refresh.maxAge());
    return m;
  }

  private static double ratio(long a, long b) {
    return b == 0 ? 0 : a / (double) b;
  }

  /** The oldest reused embedding any step has read, in steps (-1: none). */
  int maxReusedAge() {
    return refresh == null ? -1 : refresh.maxAge();
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
    if (hostGrads != null) {
      hostGrads.close();
      hostGrads = null;
    }
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
    return step(b, epoch, lr, null);
  }

  /**
   * As {@link #step(TrainBatch, int, float)}, reusing the hot rows' layer-0 embeddings from {@code
   * hot} (indexed by the {@link HotSet}'s slots; null: none): layer 0 runs on the batch's bottom
   * block pruned for them (by its loader, or here), and they pass no gradient but through the
   * refresh's deferred backward when it has one.
   */
  private StepStats step(TrainBatch b, int epoch, float lr, FloatTensor hot) {
    MiniBatch mb = b.batch();
    checkBatch(mb, b.dim());
    int rows = mb.numSeeds();
    int classes = model.config().classes();
    int[] labels = mb.labels();
    BatchTensors t;
    reused.clear();
    if (b.prunedFor != null && b.pruner.active() && (hot == null || b.prunedFor != hotSet)) {
      throw new IllegalStateException(
          "batch " + mb.batch() + " was pruned for a hot set this step does not reuse");
    }
    if (hot != null && b.slots() != null) {
      throw new IllegalStateException(
          "batch "
              + mb.batch()
              + " reads its rows from a feature cache's slots, which hot-embedding reuse does not"
              + " prune");
    }
    if (hot != null && (b.features() != null || featureRows != null)) {
      HotPruner p = prunedBy(b);
      if (!p.active()) {
        t = upload(model, featureRows, b, labels, rows);
      } else if (b.features() == null) {
        // zero-copy: the backend reads the rows of the pruned block's sources only
        p.describe(reused, hot);
        t = model.upload(p.blocks(), p.keptNodes(), featureRows, labels, rows);
      } else {
        p.describe(reused, hot);
        float[] x = b.features();
        if (p == pruner) { // pruned here, after the gather: keep the pruned block's rows
          compacted = pruner.compact(x, b.dim(), compacted);
          x = compacted;
        }
        t = model.upload(p.blocks(), x, labels, rows);
      }
    } else {
      t = upload(model, featureRows, b, labels, rows);
    }
    if (hot != null) {
      reused.inputs(refresh.inputs());
      reused.gradientSink(refresh.gradientSink());
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
      addDeferred(hot);
      exchangeGradients();
      adam.update(model.paramTensor(), model.gradTensor(), lr);
      return s;
    }
    int labeled = 0;
    for (int i = 0; i < rows; i++) {
      if (labels[i] >= 0) {
        labeled++;
      }
    }
    probs = TensorBufs.ensure(be, probs, (long) rows * classes);
    dLogits = TensorBufs.ensure(be, dLogits, (long) rows * classes);
    double loss =
        be.softmaxCrossEntropy(
            logits, rows, classes, t.labels(), probs, dLogits, labeled == 0 ? 0f : 1f / labeled);
    int correct = be.countCorrect(probs, rows, classes, t.labels());
    model.zeroGrad();
    model.backward(dLogits);
    addDeferred(hot);
    exchangeGradients();
    adam.update(model.paramTensor(), model.gradTensor(), lr);
    return new StepStats(loss, labeled, correct);
  }

  /** With a deferred backward, this step's share of layer 0's gradient from reused rows. */
  private void addDeferred(FloatTensor hot) {
    if (hot != null) {
      refresh.addDeferredGradient(model.gradTensor());
    }
  }

  /**
   * The pruner that pruned {@code b} for the hot set in use: its loader's, or this trainer's after
   * pruning it here; its counts are added to the reuse stats.
   */
  private HotPruner prunedBy(TrainBatch b) {
    HotPruner p = b.prunedFor != null && b.prunedFor == hotSet ? b.pruner : pruner;
    if (p == pruner) {
      pruner.prune(b.batch(), hotSet.slotOf());
    }
    count(p);
    return p;
  }

  private void count(HotPruner p) {
    bottomRows += p.bottomRows;
    bottomEdges += p.bottomEdges;
    bottomSources += p.bottomSources;
    rowsAvoided += p.rowsAvoided;
    edgesAvoided += p.edgesAvoided;
    sourcesAvoided += p.sourcesAvoided;
  }

  private static float[] ensureHost(float[] a, int n) {
    return a != null && a.length >= n ? a : new float[n];
  }

  /**
   * The batch on the backend: its features from the host array, or, when it comes without (a loader
   * that does not gather), the ids of its nodes with the rows read by {@code featureRows}.
   */
  private static BatchTensors upload(
      GnnModel model, FeatureRows featureRows, TrainBatch b, int[] labels, int rows) {
    MiniBatch mb = b.batch();
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

  /**
   * Replaces the gradients with their mean over the replicas: download into a host buffer the
   * backend allocated (page-locked on a GPU, so the copies are DMA), {@link
   * GradientReducer#allReduceMean(java.nio.FloatBuffer, int)} in it, upload from it. A
   * single-process run ({@link GradientReducer#LOCAL}) has nothing to exchange and leaves them on
   * the backend.
   */
  private void exchangeGradients() {
    if (reducer == GradientReducer.LOCAL) {
      return;
    }
    int n = model.numParams();
    if (hostGrads == null) {
      hostGrads = be.allocHostFloats(n);
    }
    be.download(model.gradTensor(), 0, hostGrads, 0, n);
    reducer.allReduceMean(hostGrads.floats(), n);
    be.upload(hostGrads, 0, model.gradTensor(), 0, n);
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

  static int argmax(float[] a, int off, int n) {
    int best = 0;
    for (int c = 1; c < n; c++) {
      if (a[off + c] > a[off + best]) {
        best = c;
      }
    }
    return best;
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
    TrainBatch b;
    while ((b = stream.next()) != null) {
      if (cancelled.getAsBoolean()) {
        throw new TrainCancelledException(
            "training cancelled in epoch " + epoch + " after " + steps + " batch(es)");
      }
      FloatTensor hot = refresh == null ? null : refresh.beforeStep(adam.step(), model);
      StepStats s = step(b, epoch, lr, hot);
      stream.recycle(b);
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
   * Accuracy and loss of {@code model} over the labeled seeds of {@code stream}, without dropout.
   */
  public static Accuracy evaluate(GnnModel model, BatchStream stream) {
    return evaluate(model, stream, null);
  }

  /**
   * As {@link #evaluate(GnnModel, BatchStream)}; batches without features read theirs from {@code
   * featureRows} (see {@link #readFeaturesFrom}).
   */
  public static Accuracy evaluate(GnnModel model, BatchStream stream, FeatureRows featureRows) {
    Backend be = model.backend();
    int classes = model.config().classes();
    FloatTensor probs = null;
    long correct = 0;
    long total = 0;
    double loss = 0;
    try {
      TrainBatch b;
      while ((b = stream.next()) != null) {
        MiniBatch mb = b.batch();
        int rows = mb.numSeeds();
        BatchTensors t = upload(model, featureRows, b, mb.labels(), rows);
        FloatTensor logits = model.forward(t, false, 0L);
        probs = TensorBufs.ensure(be, probs, (long) rows * classes);
        loss += be.softmaxCrossEntropy(logits, rows, classes, t.labels(), probs, null, 1f);
        correct += be.countCorrect(probs, rows, classes, t.labels());
        for (int l : mb.labels()) {
          total += l >= 0 ? 1 : 0;
        }
        stream.recycle(b);
      }
    } finally {
      TensorBufs.free(be, probs);
    }
    return new Accuracy(correct, total, loss);
  }

  /**
   * Trains up to {@link TrainOptions#epochs()} with a checkpoint after every epoch.
   *
   * <p>With validation data, the epoch of best validation accuracy is also saved as {@link
   * Checkpoint#BEST} (written before {@code checkpoint.bin}, so a resumed run knows it).
   *
   * <p>An existing checkpoint in {@code modelDir} is continued when {@code resume} is true (after
   * checking that its model, options and {@code identity} equal this run's) and refused otherwise.
   * Rank 0 writes the checkpoint and appends a line per epoch to {@link #METRICS}.
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
    Map<String, String> meta = new TreeMap<>();
    model.config().toMap().forEach((k, v) -> meta.put("model." + k, v));
    opts.toMap().forEach((k, v) -> meta.put("identity.train." + k, v));
    // Extending a run to more epochs is allowed; everything else must match.
    meta.remove("identity.train.epochs");
    if (reuse.enabled()) { // absent without reuse, so existing checkpoints keep their identity
      reuse.toMap().forEach((k, v) -> meta.put("identity.train." + k, v));
      // auto's schedule depends on the backend and the rows; the checkpoint records what it was
      meta.put(
          "identity.train.reuse_refresh",
          reuse.inlineOn(be) ? HotReuse.INLINE : HotReuse.OVERLAPPED);
    }
    identity.forEach((k, v) -> meta.put("identity." + k, v));
    int start = 0;
    if (Checkpoint.exists(modelDir)) {
      Checkpoint ck = Checkpoint.read(modelDir);
      if (!resume) {
        throw new InvalidInputException(
            "model dir "
                + modelDir
                + " already holds a checkpoint ("
                + ck.epochs()
                + " epochs of a "
                + ck.meta().get("model.kind")
                + " model); pass --resume to continue it or choose another --model-dir");
      }
      checkSameRun(modelDir, ck.meta(), meta);
      model.loadParams(ck.params());
      adam.load(ck.firstMoment(), ck.secondMoment(), ck.step());
      start = ck.epochs();
      String best = ck.meta().get("state.best_val_accuracy");
      bestVal = best == null ? -1 : Double.parseDouble(best);
    } else {
      model.init(opts.seed());
      bestVal = -1;
    }
    if (reducer.rank() == 0) {
      keepMetricsBefore(modelDir, start);
    }
    if (start < opts.epochs()) {
      prepareReuse(train);
    }
    progress.started(start, opts.epochs());
    List<EpochStats> out = new ArrayList<>();
    Opened next = start < opts.epochs() ? Opened.of(this, train, start) : null;
    try {
      for (int e = start; e < opts.epochs(); e++) {
        float lr = opts.schedule().lr(opts.lr(), e, opts.epochs());
        Opened cur = next;
        // The next epoch's loader starts reading now, so epoch boundaries do not stall the steps.
        next = e + 1 < opts.epochs() ? Opened.of(this, train, e + 1) : null;
        EpochStats s;
        int batches = train.batches(e);
        progress.epochStarted(e, opts.epochs(), batches);
        try (BatchStream stream = cur.get()) {
          s = trainEpoch(e, batches, stream, lr, progress);
        }
        epochDone(e, s, val, modelDir, meta, progress, out);
      }
    } finally {
      if (next != null) {
        next.close();
      }
    }
    return out;
  }

  /** An epoch's stream opened ahead of time, or the error opening it raised (rethrown on use). */
  private record Opened(BatchStream stream, RuntimeException error) {
    static Opened of(Trainer trainer, EpochData data, int epoch) {
      try {
        return new Opened(trainer.open(data, epoch), null);
      } catch (RuntimeException e) {
        return new Opened(null, e);
      }
    }

    BatchStream get() {
      if (error != null) {
        throw error;
      }
      return stream;
    }

    void close() {
      if (stream != null) {
        stream.close();
      }
    }
  }

  private void epochDone(
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
        va = evaluate(model, vs, featureRows);
      }
    }
    out.add(s);
    if (reducer.rank() == 0) {
      appendMetrics(modelDir, s, va);
      if (va != null && va.value() > bestVal) {
        bestVal = va.value();
        Checkpoint.write(
            modelDir,
            Checkpoint.BEST,
            meta,
            e + 1,
            adam.step(),
            model.params(),
            adam.firstMoment(),
            adam.secondMoment());
      }
      Map<String, String> state = new TreeMap<>(meta);
      if (bestVal >= 0) {
        state.put("state.best_val_accuracy", Double.toString(bestVal));
      }
      Checkpoint.write(
          modelDir,
          state,
          e + 1,
          adam.step(),
          model.params(),
          adam.firstMoment(),
          adam.secondMoment());
    }
    progress.epochEnded(s, opts.epochs(), va);
  }

  private static void checkSameRun(Path dir, Map<String, String> found, Map<String, String> want) {
    for (String k : HotReuse.identityKeys()) {
      // Reuse is only in the identity when on: a run with it on is not a run with it off.
      String key = "identity.train." + k;
      if (found.containsKey(key) && !want.containsKey(key)) {
        throw new InvalidInputException(
            "the checkpoint in "
                + dir
                + " belongs to another run: it was trained with "
                + key
                + " = '"
                + found.get(key)
                + "' but this run does not; use another --model-dir or the same options");
      }
    }
    List<Map.Entry<String, String>> entries = new ArrayList<>(want.entrySet());
    // The model's architecture first: the most telling difference.
    entries.sort(
        (a, b) ->
            Boolean.compare(!a.getKey().startsWith("model."), !b.getKey().startsWith("model.")));
    for (Map.Entry<String, String> w : entries) {
      String f = found.get(w.getKey());
      if (f == null && w.getKey().equals("identity.train.reuse_refresh")) {
        throw new InvalidInputException(
            "the checkpoint in "
                + dir
                + " does not record which refresh schedule its reuse ran (a checkpoint trained"
                + " with --reuse-refresh auto before Fanout recorded it), so it cannot be told"
                + " apart from a run whose schedule is '"
                + w.getValue()
                + "'; use another --model-dir or train it again");
      }
      if (!w.getValue().equals(f)) {
        throw new InvalidInputException(
            "the checkpoint in "
                + dir
                + " belongs to another run: its "
                + w.getKey()
                + " is '"
                + f
                + "' but this run has '"
                + w.getValue()
                + "'; use another --model-dir or the same options");
      }
    }
  }

  private static void keepMetricsBefore(Path dir, int epoch) {
    Path f = dir.resolve(METRICS);
    try {
      if (!Files.exists(f)) {
        return;
      }
      List<String> keep = new ArrayList<>();
      for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
        int at = line.indexOf("\"epoch\":");
        if (at >= 0) {
          int end = line.indexOf(',', at);
          int e = Integer.parseInt(line.substring(at + 8, end).trim());
          if (e < epoch) {
            keep.add(line);
          }
        }
      }
      Path tmp = dir.resolve(METRICS + ".tmp");
      Files.write(tmp, keep, StandardCharsets.UTF_8);
      io.fanout.store.AtomicFiles.replace(tmp, f);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot rewrite " + f, e);
    }
  }

  private static void appendMetrics(Path dir, EpochStats s, Accuracy va) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("epoch", s.epoch());
    m.put("loss", s.loss());
    m.put("train_accuracy", s.accuracy());
    if (va != null) {
      m.put("val_accuracy", va.value());
      m.put("val_loss", va.meanLoss());
    }
    m.put("lr", s.lr());
    m.put("batches", s.batches());
    m.put("seeds", s.seeds());
    m.put("epoch_seconds", s.seconds());
    m.put("data_wait_seconds", s.waitSeconds());
    m.put("data_wait_fraction", s.waitFraction());
    m.put("seeds_per_second", s.seeds() / Math.max(1e-9, s.seconds()));
    StringBuilder sb = new StringBuilder("{");
    for (Map.Entry<String, Object> e : m.entrySet()) {
      if (sb.length() > 1) {
        sb.append(',');
      }
      sb.append('"').append(e.getKey()).append("\":");
      Object v = e.getValue();
      sb.append(v instanceof Double d ? String.format(Locale.ROOT, "%.6g", d) : v.toString());
    }
    sb.append("}\n");
    try {
      // Created with the first epoch's line, not before: a run that fails earlier leaves no folder.
      Files.createDirectories(dir);
      Files.writeString(
          dir.resolve(METRICS),
          sb,
          StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to " + dir.resolve(METRICS), e);
    }
  }
}
