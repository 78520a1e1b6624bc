package io.fanout.train.typed;

import io.fanout.graph.TypedGraph;
import io.fanout.nn.Adam;
import io.fanout.nn.typed.ReusedBottom;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.Backend;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import io.fanout.tensor.TensorBufs;
import io.fanout.train.EarlyStop;
import io.fanout.train.GradientReducer;
import io.fanout.train.HotReuse;
import io.fanout.train.Trainer;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Synchronous mini-batch training of a {@link TypedModel} for node classification on its target
 * type: per step forward, loss (softmax cross-entropy, or a sigmoid cross-entropy per class for
 * label sets), backward, Adam on the dense parameters and a sparse Adam step on the embedding rows
 * the batch read. {@link #fit} adds validation per epoch, checkpoints ({@link TypedCheckpoint}: the
 * last epoch's and the best validation epoch's) and exact resume.
 *
 * <p>Determinism: parameters and embeddings derive from the seed, the seed order of epoch {@code e}
 * from (seed, e), dropout from (seed, epoch, batch), and every reduction runs in a fixed order: the
 * same seed and sampler give bit-identical parameters, resumed or not. Data-parallel replicas
 * (constructed with a {@link GradientReducer} of several workers, each over its share of the
 * batches) exchange their gradients after every step ({@link TypedStepUpdate}) and stay
 * bit-identical; the same worker count gives the same bits.
 */
public final class TypedTrainer implements AutoCloseable {
  /**
   * The validation score {@code best.bin} and {@link EarlyStop} go by, as progress lines say it.
   */
  private static final String SCORE = "val Micro-F1";

  private final TypedModel model;
  private final TypedGraph graph;
  private final TypedSampler sampler;
  private final TypedTrainOptions opts;
  private final Adam adam;
  private final TypedStepUpdate update;
  private final Backend be;
  private final TypedEpochLoop loop;
  private final TypedEpochs epochs;
  private final TypedReuseRun reuse;
  private final long[] pruned = new long[6]; // bottom rows, edges, input rows; and avoided
  private final int evalBatch;
  private FloatTensor probs;
  private FloatTensor dLogits;
  private IntTensor labels;
  private FloatTensor targets;
  private EarlyStop earlyStop = EarlyStop.OFF;

  /**
   * A trainer that samples its training batches with {@code sampler} from the target type's train
   * split, {@code opts.batchSize()} seeds each; validation and {@link #evaluate} use the same
   * sampler.
   */
  public TypedTrainer(
      TypedModel model, TypedGraph graph, TypedSampler sampler, TypedTrainOptions opts) {
    this(
        model,
        graph,
        TypedEpochs.sampled(sampler, trainSeeds(graph, model), opts.batchSize(), opts.seed()),
        sampler,
        opts);
  }

  /**
   * A trainer over the training batches {@code epochs} gives (typed shards); validation and {@link
   * #evaluate} sample with {@code sampler} in batches of {@code opts.batchSize()} seeds.
   */
  public TypedTrainer(
      TypedModel model,
      TypedGraph graph,
      TypedEpochs epochs,
      TypedSampler sampler,
      TypedTrainOptions opts) {
    this(model, graph, epochs, sampler, opts, GradientReducer.LOCAL);
  }

  /**
   * A data-parallel replica: as {@link #TypedTrainer(TypedModel, TypedGraph, TypedEpochs,
   * TypedSampler, TypedTrainOptions)}, over this replica's share of the batches ({@link
   * TypedEpochs#share}), its gradients and embedding rows averaged over the replicas by {@code
   * reducer} after every step ({@link TypedStepUpdate}). Every replica validates (with the same
   * parameters, so the same scores and best epoch); only rank 0 writes the model dir.
   */
  public TypedTrainer(
      TypedModel model,
      TypedGraph graph,
      TypedEpochs epochs,
      TypedSampler sampler,
      TypedTrainOptions opts,
      GradientReducer reducer) {
    this.model = model;
    this.graph = graph;
    this.sampler = sampler;
    this.opts = opts;
    this.be = model.backend();
    this.loop = new TypedEpochLoop(epochs, graph, model);
    this.reuse = new TypedReuseRun(model);
    this.epochs = epochs;
    this.evalBatch = opts.batchSize();
    this.adam = new Adam(be, model.numParams(), opts.weightDecay());
    this.update = new TypedStepUpdate(model, adam, reducer);
  }

  private static int[] trainSeeds(TypedGraph graph, TypedModel model) {
    int[] s = TypedEvaluation.seeds(graph, model.config().target(), StoreLayout.SPLIT_TRAIN);
    if (s.length == 0) {
      throw new InvalidInputException(
          "target type '"
              + model.config().type(model.config().target()).name()
              + "' has no vertices in the train split");
    }
    return s;
  }

  public TypedModel model() {
    return model;
  }

  public Adam optimizer() {
    return adam;
  }

  /** One step's summed loss and the labelled seeds (link batches: pairs) it covered. */
  public record StepResult(double loss, int labelled) {}

  /**
   * Reuses the hot vertices' layer-0 outputs ({@code train --reuse-hot} on a typed store): before
   * the first step the hot set is selected from epoch 0 of the training batches ({@link
   * TypedHotSet}), every batch's bottom hop is pruned for it ({@link TypedHotPruner}, in the loader
   * before the gather) and the hot rows read a cache at most {@code reuse.staleness()} steps old,
   * refreshed inline or on a worker thread ({@code overlapped}; {@link TypedHotRefresh}), the
   * reused rows' gradient dropped or deferred; a cache of {@code outputs} only; {@link
   * HotReuse#OFF} (the default) trains as without it, bit for bit. Call before training.
   */
  public TypedTrainer reuseHot(HotReuse reuse) {
    this.reuse.set(reuse);
    return this;
  }

  /** One training step on {@code b} (of epoch {@code epoch}). */
  public StepResult step(TypedMiniBatch b, int epoch) {
    reuse.start(epochs, graph, opts.seed(), loop);
    return step(loop.prepared(b), epoch, opts.lr(epoch));
  }

  /** One training step on {@code in}'s batch and input rows at rate {@code lr}. */
  private StepResult step(TypedInputs in, int epoch, float lr) {
    TypedMiniBatch b = in.batch();
    TypedModelConfig cfg = model.config();
    model.zeroGrad();
    long key = Trainer.batchKey(opts.seed(), epoch, b.batch());
    FloatTensor cache = reuse.beforeStep(adam.step());
    ReusedBottom reused = reuse.reusedOf(in);
    if (reuse.active()) {
      countPruned(b, reused);
    }
    FloatTensor logits = model.forward(b, in.features(), true, key, reused, cache);
    int rows = b.numSeeds();
    int classes = cfg.classes();
    int n = rows * classes;
    double loss;
    int labelled;
    probs = TensorBufs.ensure(be, probs, Math.max(1, n));
    dLogits = TensorBufs.ensure(be, dLogits, Math.max(1, n));
    if (cfg.multiLabel()) {
      float[] t = targets(b, classes);
      labelled = 0;
      for (int r = 0; r < rows; r++) {
        labelled += b.labelPtr()[r + 1] > b.labelPtr()[r] ? 1 : 0;
      }
      targets = TensorBufs.ensure(be, targets, Math.max(1, n));
      be.upload(t, 0, targets, 0, n);
      loss =
          be.sigmoidCrossEntropy(
              logits, rows, classes, targets, probs, dLogits, 1f / Math.max(1, labelled));
      model.backward(dLogits);
    } else {
      labelled = 0;
      for (int l : b.labels()) {
        labelled += l >= 0 ? 1 : 0;
      }
      labels = TensorBufs.ensure(be, labels, Math.max(1, rows));
      be.upload(b.labels(), 0, labels, 0, rows);
      loss =
          be.softmaxCrossEntropy(
              logits, rows, classes, labels, probs, dLogits, 1f / Math.max(1, labelled));
      model.backward(dLogits);
    }
    reuse.afterBackward(reused);
    update.apply(b, lr);
    return new StepResult(loss, labelled);
  }

  /**
   * The seeds' label sets as {@code rows x classes} targets of {@link Backend#sigmoidCrossEntropy}:
   * 1 for a class in the set, 0 otherwise, -1 throughout an unlabelled (empty) row.
   */
  static float[] targets(TypedMiniBatch b, int classes) {
    int rows = b.numSeeds();
    int[] ptr = b.labelPtr();
    float[] t = new float[rows * classes];
    for (int r = 0; r < rows; r++) {
      if (ptr[r + 1] == ptr[r]) {
        java.util.Arrays.fill(t, r * classes, (r + 1) * classes, -1f);
      }
      for (int i = ptr[r]; i < ptr[r + 1]; i++) {
        t[r * classes + b.labelIds()[i]] = 1f;
      }
    }
    return t;
  }

  /** Seconds the training steps so far waited for their batches (the loader's data wait). */
  public double dataWaitSeconds() {
    return loop.dataWaitSeconds();
  }

  /** Trains one epoch; returns the mean loss per labelled seed. */
  public double trainEpoch(int epoch) {
    reuse.start(epochs, graph, opts.seed(), loop);
    float lr = opts.lr(epoch);
    return loop.meanLoss(epoch, in -> step(in, epoch, lr));
  }

  private TypedEpochs valBatches;

  /**
   * Validates on the pre-sampled batches of {@code val} ({@code --val-shards}: its epoch 0) instead
   * of sampling the target type's val split.
   */
  public TypedTrainer validateOn(TypedEpochs val) {
    this.valBatches = val;
    return this;
  }

  /**
   * Ends {@link #fit} once {@code stop.patience()} epochs in a row bring no better validation
   * Micro-F1 ({@link EarlyStop}; off by default); {@link #fit} then needs validation. Every replica
   * validates with the same parameters, so all stop after the same epoch.
   */
  public TypedTrainer stopEarly(EarlyStop stop) {
    this.earlyStop = Objects.requireNonNull(stop, "stop");
    return this;
  }

  /** Stops training before the next step once {@code check} is true. */
  public TypedTrainer cancelWhen(java.util.function.BooleanSupplier check) {
    loop.cancelWhen(check);
    return this;
  }

  /** Scores on the target type's vertices in {@code split} ({@code StoreLayout.SPLIT_*}). */
  public F1Scores evaluate(byte split) {
    int[] seeds = TypedEvaluation.seeds(graph, model.config().target(), split);
    return TypedEvaluation.scores(model, graph, sampler, seeds, evalBatch, opts.seed());
  }

  /**
   * What {@link #fit} did.
   *
   * @param epochsRun epochs this call trained (0 when a resumed run was already complete or had
   *     stopped early)
   * @param lastLoss the last epoch's mean loss per labelled seed (NaN when none ran)
   * @param lastVal the last validation scores, or null
   */
  public record FitResult(
      int epochsRun, double lastLoss, F1Scores lastVal, double bestValMicroF1, int bestEpoch) {}

  /**
   * Trains up to {@code opts.epochs()} epochs, validating after each (on {@link #validateOn}'s
   * batches, else when the target type has validation vertices). With a model dir it writes {@code
   * checkpoint.bin} after every epoch and {@code best.bin} at each new best validation Micro-F1,
   * and first resumes from a checkpoint there (which must come from the same model and options).
   * With {@link #stopEarly} it ends once that many epochs in a row bring no better Micro-F1.
   */
  public FitResult fit(Path modelDir, PrintStream log) {
    int[] val = TypedEvaluation.seeds(graph, model.config().target(), StoreLayout.SPLIT_VAL);
    if (earlyStop.on() && valBatches == null && val.length == 0) {
      throw earlyStop.needsValidation(
          "target type '"
              + model.config().type(model.config().target()).name()
              + "' has no vertices in the val split; give --val-shards (sample --split val)");
    }
    Map<String, String> identity = opts.identity();
    TypedHotReuse.addIdentity(reuse.settings(), identity);
    TypedModelDir.Progress resumed =
        TypedModelDir.resume(modelDir, model, adam, identity, "best.val_micro_f1");
    int start = resumed.startEpoch();
    double best = resumed.best();
    int bestEpoch = resumed.bestEpoch();
    int end = TypedModelDir.end(resumed, opts.epochs(), earlyStop, log, SCORE);
    F1Scores lastVal = null;
    double loss = Double.NaN;
    for (int e = start; e < end; e++) {
      loss = trainEpoch(e);
      boolean improved = false;
      if (valBatches != null || val.length > 0) {
        lastVal =
            valBatches != null
                ? TypedEvaluation.scores(model, graph, valBatches, opts.seed())
                : TypedEvaluation.scores(model, graph, sampler, val, evalBatch, opts.seed());
        if (lastVal.microF1() > best) {
          best = lastVal.microF1();
          bestEpoch = e + 1;
          improved = true;
        }
      }
      if (log != null) {
        log.println(
            String.format(
                Locale.ROOT,
                "epoch %d loss %.4f%s",
                e + 1,
                loss,
                lastVal == null ? "" : " val " + lastVal));
      }
      boolean stop = earlyStop.endsEarlyAfter(e + 1, bestEpoch, opts.epochs());
      if (modelDir != null && update.reducer().rank() == 0) {
        TypedModelDir.endEpoch(
            modelDir,
            model,
            adam,
            identity,
            "best.val_micro_f1",
            new TypedModelDir.Progress(e + 1, best, bestEpoch),
            improved,
            stop,
            e + 1,
            loss,
            lastVal == null ? null : lastVal.metrics());
      }
      if (stop) {
        if (log != null) {
          log.println(EarlyStop.line(e + 1, bestEpoch, earlyStop.patience(), SCORE));
        }
        end = e + 1; // the last epoch of this run
      }
    }
    return new FitResult(end - start, loss, lastVal, best, bestEpoch);
  }

  /** Adds {@code b}'s bottom hop and what pruning it ({@code r}, null: nothing) avoided. */
  private void countPruned(TypedMiniBatch b, ReusedBottom r) {
    int top = b.layers();
    long rows = 0;
    long edges = 0;
    long inputs = 0;
    long edgesLeft = 0;
    long inputsLeft = 0;
    for (int t = 0; t < b.numTypes(); t++) {
      rows += b.layerSize(t, top - 1);
      inputs += b.layerSize(t, top);
      inputsLeft += r == null ? b.layerSize(t, top) : r.block().layerSize(t, 1);
    }
    for (int rel = 0; rel < b.numRelations(); rel++) {
      edges += b.indices(top, rel).length;
      edgesLeft += r == null ? b.indices(top, rel).length : r.block().indices(1, rel).length;
    }
    pruned[0] += rows;
    pruned[1] += edges;
    pruned[2] += inputs;
    pruned[3] += r == null ? 0 : r.hotRow().length;
    pruned[4] += edges - edgesLeft;
    pruned[5] += inputs - inputsLeft;
  }

  /**
   * What hot reuse did so far: hot vertices, refreshes, the oldest cache a step read ({@code
   * max_embedding_age_steps}), the steps' bottom-hop rows, edges and input rows and how many of
   * each pruning avoided; empty without reuse.
   */
  public Map<String, Object> reuseStats() {
    Map<String, Object> m = reuse.stats();
    if (reuse.active()) {
      m.put("bottom_rows", pruned[0]);
      m.put("bottom_edges", pruned[1]);
      m.put("input_rows", pruned[2]);
      m.put("bottom_rows_avoided", pruned[3]);
      m.put("bottom_edges_avoided", pruned[4]);
      m.put("input_rows_avoided", pruned[5]);
    }
    return m;
  }

  @Override
  public void close() {
    reuse.close();
    update.close();
    adam.close();
    TensorBufs.free(be, probs);
    TensorBufs.free(be, dLogits);
    TensorBufs.free(be, labels);
    TensorBufs.free(be, targets);
    targets = null;
    probs = dLogits = null;
    labels = null;
  }
}
