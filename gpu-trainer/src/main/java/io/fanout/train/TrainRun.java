package io.fanout.train;

import io.fanout.features.CachePolicy;
import io.fanout.features.RowCache;
import io.fanout.features.StoreFeatureRows;
import io.fanout.graph.GraphStore;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.GnnModel;
import io.fanout.nn.ModelConfig;
import io.fanout.nn.ModelKind;
import io.fanout.store.OutputLock;
import io.fanout.store.StoreManifest;
import io.fanout.tensor.Backend;
import io.fanout.tensor.Backends;
import io.fanout.tensor.FeatureRows;
import io.fanout.tensor.MatmulPrecision;
import io.fanout.tensor.PageMemory;
import io.fanout.tensor.PagedFeatureRows;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A whole training run, engine-free: opens the store and shards, checks them ({@link TrainInputs}),
 * builds the model on its backend and fits it ({@link Trainer}); checkpoints and metrics land in
 * the model dir. The Spark stages of spark-ops and the trainers on executors call it; nothing here
 * needs a SparkSession.
 */
public final class TrainRun {
  private TrainRun() {}

  /** What a training run did. */
  public record Result(ModelConfig config, List<EpochStats> epochs) {}

  /**
   * Trains (or resumes) a model; checkpoints and metrics land in {@code spec.output().modelDir()}.
   */
  public static Result train(TrainSpec spec, PrintStream progress) {
    return train(spec, progress, model -> GradientReducer.LOCAL, false);
  }

  /**
   * As {@link #train(TrainSpec, PrintStream)}, as one worker of data-parallel training (see {@code
   * docs/distributed.md}): {@code reducerFor} gives the gradient reducer for the model (called
   * once); with more than one worker this worker trains on its share of every epoch's batches
   * ({@link ShardedEpochData}), only rank 0 validates and writes the model dir, and {@code retry}
   * resumes from the model dir's checkpoint even without {@code spec.output().resume()} (a retried
   * barrier stage).
   */
  public static Result train(
      TrainSpec spec,
      PrintStream progress,
      Function<GnnModel, GradientReducer> reducerFor,
      boolean retry) {
    return train(spec, progress, reducerFor, retry, () -> false);
  }

  /**
   * As {@link #train(TrainSpec, PrintStream, Function, boolean)}, stopping with {@link
   * TrainCancelledException} before the next batch once {@code cancelled} returns true (see {@link
   * Trainer#cancelWhen}); the model dir then holds the checkpoint of the last complete epoch, if
   * any.
   *
   * @throws OutOfHeapException before training when the model and the batches the loaders keep
   *     ready cannot fit in this JVM's heap ({@code Runtime.maxMemory()}), or when the heap ran out
   *     during training
   */
  public static Result train(
      TrainSpec spec,
      PrintStream progress,
      Function<GnnModel, GradientReducer> reducerFor,
      boolean retry,
      BooleanSupplier cancelled) {
    return train(spec, progress, reducerFor, retry, cancelled, model -> {});
  }

  /**
   * As {@link #train(TrainSpec, PrintStream, Function, boolean, BooleanSupplier)}, calling {@code
   * afterFit} with the trained model after the last epoch and before the model and its backend are
   * released (e.g. data-parallel training's final check that the replicas agree). The model, the
   * trainer and the backend are closed when the run ends, normally or not.
   */
  public static Result train(
      TrainSpec spec,
      PrintStream progress,
      Function<GnnModel, GradientReducer> reducerFor,
      boolean retry,
      BooleanSupplier cancelled,
      Consumer<GnnModel> afterFit) {
    try {
      return run(spec, progress, reducerFor, retry, cancelled, afterFit);
    } catch (RuntimeException | OutOfMemoryError e) {
      // The run's boundary: what it allocated is unreachable again.
      OutOfMemoryError oom = TrainMemory.find(e);
      if (oom == null) {
        throw e;
      }
      throw TrainMemory.of(spec, retry).ranOut(oom, Runtime.getRuntime().maxMemory());
    }
  }

  /**
   * {@code spec} with its feature access resolved for {@code backend} ({@link
   * FeatureAccessChoice}); auto's choice on a device and its reason go to {@code progress}.
   */
  private static TrainSpec resolveFeatureAccess(
      TrainSpec spec, Backend backend, GraphStore store, ShardSet shards, PrintStream progress) {
    FeatureAccessMode asked = spec.features().access();
    FeatureAccessChoice.Choice c =
        FeatureAccessChoice.resolve(
            asked,
            backend,
            StoreFeatureRows.encodedBytes(store),
            store.manifest().featureDim <= 0
                ? "the store has no feature rows"
                : TrainInputs.inPlaceRefusal(spec, shards),
            spec.features().cache() != null);
    // on the CPU backends auto is what train always did: nothing to report
    if (asked == FeatureAccessMode.AUTO && progress != null && backend.freeDeviceBytes() >= 0) {
      progress.println("train: --feature-access auto: " + c.mode().id() + " (" + c.why() + ")");
    }
    return spec.toBuilder().features(f -> f.withAccess(c.mode())).build();
  }

  private static Result run(
      TrainSpec spec,
      PrintStream progress,
      Function<GnnModel, GradientReducer> reducerFor,
      boolean retry,
      BooleanSupplier cancelled,
      Consumer<GnnModel> afterFit) {
    try (GraphStore store = GraphStore.open(spec.inputs().graph(), spec.inputs().verify())) {
      StoreManifest m = store.manifest();
      ShardSet shards = ShardSet.open(spec.inputs().shards());
      int hops = TrainInputs.check(spec, store, shards);
      boolean link = TrainInputs.isLink(shards);
      boolean learned = spec.features().learns(m.featureDim);
      ModelConfig cfg =
          new ModelConfig(
              spec.architecture().model(),
              learned ? spec.architecture().hidden() : m.featureDim,
              spec.architecture().hidden(),
              link
                  ? spec.architecture().hidden()
                  : m.classes, // link: the last layer outputs embeddings
              hops,
              spec.architecture().dropout(),
              spec.architecture().activation(),
              spec.architecture().featureNorm(),
              link ? spec.architecture().decoder() : DecoderKind.DOT,
              spec.architecture().model() == ModelKind.GAT
                  ? spec.architecture()
                      .attention()
                      .resolve(shards.manifest().seedsPerEpoch, m.classes)
                  : spec.architecture().attention());
      if (learned) {
        cfg = cfg.withEmbeddingRows(m.vertices);
      }
      TrainMemory.checkModel(cfg, Runtime.getRuntime().maxMemory());
      try (ModelLease lease =
          ModelLease.open(cfg, Backends.select(spec.device().backend(), spec.device().ordinal()))) {
        GnnModel model = lease.model();
        lease.backend().matmulPrecision(spec.device().precision());
        spec =
            learned
                ? spec.toBuilder().features(f -> f.withAccess(FeatureAccessMode.GATHER)).build()
                : resolveFeatureAccess(spec, lease.backend(), store, shards, progress);
        // a learned input's rows are read by the trainer at each step, not by the loaders
        boolean gather = !learned && !spec.features().readsInPlace();
        PagedFeatureRows pages = null;
        if (!gather && spec.features().cache() != null) {
          // the cache fills pages the backend reads in place (pinned host memory on a GPU)
          pages = lease.own(StoreFeatureRows.pages(lease.backend(), store.featureParams()));
        }
        int rowBytes = store.featureParams() == null ? 0 : store.featureParams().rowBytes();
        new TrainMemory(
                spec,
                new TrainMemory.Store(m.vertices, m.featureDim, rowBytes),
                shards.manifest(),
                retry,
                pages == null || pages.onHeap())
            .check(model.numParams(), Runtime.getRuntime().maxMemory());
        GradientReducer reducer = reducerFor.apply(model);
        if (reducer.rank() == 0) { // the model dir's one writer, until the run ends
          lease.own(OutputLock.acquire(spec.output().modelDir(), "model dir"));
          lease.own(new FreshModelDir(spec.output().modelDir()));
          long cut = ModelDirFiles.cutTornMetrics(spec.output().modelDir());
          if (cut > 0 && progress != null) {
            progress.println(
                "train: removed a torn last line ("
                    + cut
                    + " bytes) from "
                    + spec.output().modelDir().resolve(ModelDirFiles.METRICS));
          }
        }
        Trainer trainer =
            lease.own(
                new Trainer(
                    model,
                    new TrainOptions(
                        spec.optimization().epochs(),
                        spec.optimization().lr(),
                        spec.optimization().weightDecay(),
                        spec.optimization().schedule(),
                        spec.optimization().seed()),
                    reducer));
        trainer.cancelWhen(cancelled);
        trainer.stopEarly(new EarlyStop(spec.optimization().earlyStop()));
        trainer.reuseHot(spec.reuse(), (int) m.vertices, v -> store.csr().degree(v));
        PageMemory cachePages = PageMemory.HEAP;
        if (pages != null) {
          trainer.readFeaturesFrom(pages);
          cachePages = pages;
        } else if (!gather && !learned) {
          FeatureRows rows =
              lease.own(
                  spec.features().access() == FeatureAccessMode.DEVICE
                      ? StoreFeatureRows.resident(lease.backend(), store)
                      : StoreFeatureRows.map(lease.backend(), store));
          trainer.readFeaturesFrom(
              NormalizedFeatureRows.of(rows, lease.backend(), cfg.featureNorm()));
        }
        ShardSet vs =
            spec.inputs().valShards() != null && reducer.rank() == 0
                ? ShardSet.open(spec.inputs().valShards())
                : null;
        try (RowCache cache =
                TrainFeatureCache.open(spec, store, shards, spec.features().cache(), cachePages);
            RowCache valCache =
                vs == null || spec.features().cache() == null
                    ? null
                    : TrainFeatureCache.open(spec, store, vs, CachePolicy.NONE)) {
          EpochData train =
              shards.epochData(
                  store.features(),
                  cache,
                  cfg.inDim(),
                  gather ? cfg.featureNorm() : FeatureNormKind.NONE, // else normalized in place
                  spec.loading().loaderThreads(),
                  spec.loading().prefetch(),
                  spec.inputs().verify(),
                  gather);
          if (reducer.worldSize() > 1) {
            train = new ShardedEpochData(train, reducer.rank(), reducer.worldSize());
          }
          EpochData val =
              vs == null
                  ? null
                  : vs.epochData(
                      store.features(),
                      valCache,
                      cfg.inDim(),
                      gather || valCache != null ? cfg.featureNorm() : FeatureNormKind.NONE,
                      spec.loading().loaderThreads(),
                      spec.loading().prefetch(),
                      spec.inputs().verify(),
                      !learned && (gather || valCache != null));
          Map<String, String> identity = new LinkedHashMap<>();
          identity.put("graph", StoreFingerprints.of(m));
          identity.put("shards", shards.manifest().fingerprint());
          if (spec.device().precision() != MatmulPrecision.FP32) { // fp32 runs keep their identity
            identity.put("precision", spec.device().precision().id());
          }
          if (link) { // absent for node models, so their checkpoints keep their identity
            identity.put(LinkStep.TASK, "link");
            identity.put(LinkStep.LOGIT_SCALE_KEY, Float.toString(LinkStep.LOGIT_SCALE));
          }
          List<EpochStats> stats =
              trainer.fit(
                  train,
                  val,
                  spec.output().modelDir(),
                  spec.output().resume() || retry,
                  identity,
                  progress,
                  spec.output().logEvery());
          afterFit.accept(model);
          return new Result(cfg, stats);
        }
      }
    }
  }
}
