package io.fanout.train.typed;

import io.fanout.graph.HeldOutEdges;
import io.fanout.graph.TypedGraph;
import io.fanout.nn.Adam;
import io.fanout.nn.typed.ReusedBottom;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.sample.LinkPairs;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.tensor.FloatTensor;
import io.fanout.train.EarlyStop;
import io.fanout.train.GradientReducer;
import io.fanout.train.HotReuse;
import io.fanout.train.LinkMetrics;
import io.fanout.train.LinkStep;
import io.fanout.train.StepStats;
import io.fanout.train.Trainer;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Synchronous mini-batch training of a {@link TypedModel} for link prediction on one relation
 * ({@link TypedLinkTask}), from typed link batches ({@code sample --task link}): per step forward
 * over both endpoint types' seeds, the one-type {@link LinkStep} loss (mean binary cross-entropy of
 * the scaled cosine scores of the batch's pairs), backward, Adam on the dense parameters and a
 * sparse Adam step on the embedding rows the batch read. {@link #fit} validates after every epoch
 * on the held-out val edges, or on the pre-sampled link batches of {@link #validateOn} ({@code
 * --val-shards}), with {@link TypedLinkEvaluation} (AUC, AP, MRR, hits@K), keeps {@code best.bin}
 * at the best validation AUC, and resumes as {@link TypedTrainer} does. Deterministic as {@link
 * TypedTrainer}.
 */
public final class TypedLinkTrainer implements AutoCloseable {
  /**
   * The validation score {@code best.bin} and {@link EarlyStop} go by, as progress lines say it.
   */
  private static final String SCORE = "val AUC";

  private final TypedModel model;
  private final TypedGraph graph;
  private final TypedLinkTask task;
  private final TypedEpochLoop loop;
  private final TypedTrainOptions opts;
  private final int[][] valFanouts;
  private final Adam adam;
  private final TypedStepUpdate update;
  private final TypedEpochs epochs;
  private final TypedReuseRun reuse;
  private EarlyStop earlyStop = EarlyStop.OFF;

  /**
   * @param valFanouts the fanouts validation embeds the val edges' endpoints with
   */
  public TypedLinkTrainer(
      TypedModel model,
      TypedGraph graph,
      TypedLinkTask task,
      TypedEpochs epochs,
      int[][] valFanouts,
      TypedTrainOptions opts) {
    this(model, graph, task, epochs, valFanouts, opts, GradientReducer.LOCAL);
  }

  /**
   * A data-parallel replica, as {@link TypedTrainer}'s: this replica's share of the batches, the
   * gradients and embedding rows averaged over the replicas by {@code reducer} after every step;
   * every replica validates, only rank 0 writes the model dir.
   */
  public TypedLinkTrainer(
      TypedModel model,
      TypedGraph graph,
      TypedLinkTask task,
      TypedEpochs epochs,
      int[][] valFanouts,
      TypedTrainOptions opts,
      GradientReducer reducer) {
    if ((model.decoder() != null) != (task.decoder() == io.fanout.nn.DecoderKind.MLP)) {
      throw new IllegalArgumentException("the model's decoder differs from the task's");
    }
    if (model.config().target() != task.dstType()) {
      throw new IllegalArgumentException("a link model's target is its relation's destination");
    }
    this.model = model;
    this.graph = graph;
    this.task = task;
    this.loop = new TypedEpochLoop(epochs, graph, model);
    this.reuse = new TypedReuseRun(model);
    this.opts = opts;
    this.valFanouts = valFanouts;
    this.adam = new Adam(model.backend(), model.numParams(), opts.weightDecay());
    this.update = new TypedStepUpdate(model, adam, reducer);
    this.epochs = epochs;
  }

  /**
   * Reuses the hot vertices' layer-0 outputs ({@code train --reuse-hot} on typed link shards), as
   * {@link TypedTrainer#reuseHot} does on node shards: the hot set from epoch 0's link batches
   * (their seeds, every endpoint and negative, are never reused), each batch pruned once by its
   * loader, the cache refreshed inline or overlapped, the reused rows' gradient dropped or
   * deferred. {@link HotReuse#OFF} (the default) trains as without it, bit for bit. Call before
   * training.
   */
  public TypedLinkTrainer reuseHot(HotReuse reuse) {
    this.reuse.set(reuse);
    return this;
  }

  /**
   * What hot reuse did so far: hot vertices, the staleness bound, the schedule, refreshes, their
   * seconds and the training thread's wait for them, the oldest cache a step read; empty without
   * reuse.
   */
  public Map<String, Object> reuseStats() {
    return reuse.stats();
  }

  public TypedModel model() {
    return model;
  }

  /**
   * Ends {@link #fit} once {@code stop.patience()} epochs in a row bring no better validation AUC
   * ({@link EarlyStop}; off by default); {@link #fit} then needs validation. Every replica
   * validates with the same parameters, so all stop after the same epoch.
   */
  public TypedLinkTrainer stopEarly(EarlyStop stop) {
    this.earlyStop = Objects.requireNonNull(stop, "stop");
    return this;
  }

  /** Stops training before the next step once {@code check} is true. */
  public TypedLinkTrainer cancelWhen(java.util.function.BooleanSupplier check) {
    loop.cancelWhen(check);
    return this;
  }

  /** One training step on link batch {@code b} of {@code epoch}: summed loss, pairs, correct. */
  public StepStats step(TypedMiniBatch b, int epoch) {
    reuse.start(epochs, graph, opts.seed(), loop);
    TypedInputs in = loop.prepared(b);
    return step(b, in.features(), in.reused, epoch, opts.lr(epoch));
  }

  /**
   * One training step on link batch {@code b} with its input rows {@code x}: those of {@code
   * reused}'s pruned bottom hop when not null.
   */
  private StepStats step(TypedMiniBatch b, float[][] x, ReusedBottom reused, int epoch, float lr) {
    TypedModelConfig cfg = model.config();
    model.zeroGrad();
    long key = Trainer.batchKey(opts.seed(), epoch, b.batch());
    FloatTensor cache = reuse.beforeStep(adam.step());
    model.forwardAll(b, x, true, key, reused, cache);
    int dim = cfg.classes();
    int s = task.srcType();
    int d = task.dstType();
    int ns = b.layerSize(s, 0);
    float[] emb = task.joined(model.levelRows(0, s), task.oneType() ? null : model.levelRows(0, d));
    int rows = emb.length / dim;
    LinkPairs p = task.joinedPairs(b);
    float[] dEmb = new float[emb.length];
    StepStats st =
        model.decoder() == null
            ? LinkStep.lossAndGrad(emb, rows, dim, p, dEmb)
            : LinkStep.mlpLossAndGrad(
                model.decoder(), model.paramTensor(), model.gradTensor(), emb, rows, dim, p, dEmb);
    float[] dOut = new float[model.outputRows() * dim];
    System.arraycopy(dEmb, 0, dOut, model.outputRowOffset(s) * dim, ns * dim);
    if (!task.oneType()) {
      int nd = b.layerSize(d, 0);
      System.arraycopy(dEmb, ns * dim, dOut, model.outputRowOffset(d) * dim, nd * dim);
    }
    model.backward(dOut);
    reuse.afterBackward(reused);
    update.apply(b, lr);
    return st;
  }

  /** Seconds the training steps so far waited for their batches (the loader's data wait). */
  public double dataWaitSeconds() {
    return loop.dataWaitSeconds();
  }

  /** Trains one epoch; returns the mean loss per pair. */
  public double trainEpoch(int epoch) {
    reuse.start(epochs, graph, opts.seed(), loop);
    float lr = opts.lr(epoch);
    return loop.meanLoss(epoch, in -> loss(in, epoch, lr));
  }

  /** One training step on {@code in}'s batch and input rows: its summed loss and pairs. */
  private TypedTrainer.StepResult loss(TypedInputs in, int epoch, float lr) {
    StepStats r = step(in.batch(), in.features(), reuse.reusedOf(in), epoch, lr);
    return new TypedTrainer.StepResult(r.lossSum(), r.labeled());
  }

  private TypedEpochs valBatches;

  /**
   * Validates on the pre-sampled link batches of {@code val} ({@code --val-shards} of {@code sample
   * --task link --split val}: their epoch 0) instead of the held-out edges {@link #fit} is given;
   * null: those edges.
   */
  public TypedLinkTrainer validateOn(TypedEpochs val) {
    this.valBatches = val;
    return this;
  }

  /** The model's metrics on the pre-sampled link batches of {@code val} (their epoch 0). */
  public LinkMetrics evaluate(TypedEpochs val) {
    return TypedLinkEvaluation.metrics(model, graph, task, val, opts.seed());
  }

  /** The model's metrics on held-out edges {@code h}. */
  public LinkMetrics evaluate(HeldOutEdges h) {
    return TypedLinkEvaluation.metrics(
        model, graph, task, h, valFanouts, opts.batchSize(), opts.seed());
  }

  /**
   * What {@link #fit} did.
   *
   * @param lastVal the last validation metrics, or null
   */
  public record FitResult(
      int epochsRun, double lastLoss, LinkMetrics lastVal, double bestValAuc, int bestEpoch) {}

  /**
   * Trains up to {@code opts.epochs()} epochs, validating after each on {@link #validateOn}'s
   * batches, else on {@code val} (null: none). With a model dir it writes {@code checkpoint.bin}
   * after every epoch and {@code best.bin} at each new best validation AUC, and first resumes from
   * a checkpoint there. With {@link #stopEarly} it ends once that many epochs in a row bring no
   * better AUC.
   */
  public FitResult fit(Path modelDir, HeldOutEdges val, PrintStream log) {
    if (earlyStop.on() && valBatches == null && (val == null || val.size() == 0)) {
      throw earlyStop.needsValidation(
          "the store holds no held-out val edges of the link relation; give --val-shards (sample"
              + " --task link --split val)");
    }
    Map<String, String> identity = new java.util.LinkedHashMap<>(opts.identity());
    identity.putAll(new java.util.TreeMap<>(task.identity()));
    TypedHotReuse.addIdentity(reuse.settings(), identity);
    TypedModelDir.Progress resumed =
        TypedModelDir.resume(modelDir, model, adam, identity, "best.val_auc");
    int start = resumed.startEpoch();
    double best = resumed.best();
    int bestEpoch = resumed.bestEpoch();
    int end = TypedModelDir.end(resumed, opts.epochs(), earlyStop, log, SCORE);
    LinkMetrics lastVal = null;
    double loss = Double.NaN;
    for (int e = start; e < end; e++) {
      loss = trainEpoch(e);
      boolean improved = false;
      if (valBatches != null || (val != null && val.size() > 0)) {
        lastVal = valBatches != null ? evaluate(valBatches) : evaluate(val);
        if (lastVal.auc() > best) {
          best = lastVal.auc();
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
                lastVal == null
                    ? ""
                    : String.format(
                        Locale.ROOT,
                        " val auc %.4f ap %.4f mrr %.4f",
                        lastVal.auc(),
                        lastVal.ap(),
                        lastVal.mrr())));
      }
      boolean stop = earlyStop.endsEarlyAfter(e + 1, bestEpoch, opts.epochs());
      if (modelDir != null && update.reducer().rank() == 0) {
        TypedModelDir.endEpoch(
            modelDir,
            model,
            adam,
            identity,
            "best.val_auc",
            new TypedModelDir.Progress(e + 1, best, bestEpoch),
            improved,
            stop,
            e + 1,
            loss,
            lastVal == null ? null : lastVal.toMap());
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

  @Override
  public void close() {
    reuse.close();
    update.close();
    adam.close();
  }
}
