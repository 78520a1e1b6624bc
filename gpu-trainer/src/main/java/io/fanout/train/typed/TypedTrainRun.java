package io.fanout.train.typed;

import io.fanout.conf.FanoutConfigException;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.HeldOutEdges;
import io.fanout.graph.RowDecoder;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedSchema;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.sample.TypedNeighborSampler;
import io.fanout.shard.ShardManifest;
import io.fanout.shard.TypedShardSet;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.Backend;
import io.fanout.tensor.Backends;
import io.fanout.tensor.MatmulPrecision;
import io.fanout.train.EarlyStop;
import io.fanout.train.GradientReducer;
import io.fanout.train.LinkMetrics;
import io.fanout.train.WorkerShare;
import java.io.PrintStream;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One typed training run from typed shards: checks the shards against the graph, builds the model
 * of the shards' seed type, trains (or resumes) it with {@link TypedTrainer#fit} into the model
 * dir, once {@link TypedTrainMemory} finds that what it holds on the heap can fit. Validation
 * samples the target type's val split with the shards' fanouts, or reads {@code --val-shards}; link
 * shards ({@code sample --task link}) train a link model of their relation ({@link
 * TypedLinkTrainer}), validated on the store's val edges or on link {@code --val-shards}.
 */
public final class TypedTrainRun {
  private TypedTrainRun() {}

  /**
   * What the run did.
   *
   * @param lastVal the last validation scores of a node classifier, or null
   * @param lastLinkVal the last validation metrics of a link model, or null
   * @param bestVal the best validation Micro-F1 (a link model: AUC)
   * @param waitSeconds seconds the training steps waited for their batches
   */
  public record Result(
      TypedModelConfig config,
      int epochsRun,
      double finalLoss,
      double seconds,
      F1Scores lastVal,
      double bestVal,
      LinkMetrics lastLinkVal,
      double waitSeconds) {}

  /**
   * How one replica of a run takes part: the gradient reducer for its model (rank 0 writes the
   * model dir; a reducer of several replicas trains on this replica's share of every epoch, {@link
   * TypedEpochs#share}), whether to resume from the model dir's checkpoint whatever the request
   * says (a retried attempt), when to stop, and what to run on the trained model before the run
   * releases it (e.g. a last check that the replicas agree).
   */
  public record Replica(
      Function<TypedModel, GradientReducer> reducerFor,
      boolean retry,
      BooleanSupplier cancelled,
      Consumer<TypedModel> afterFit) {
    /** The only replica: nothing exchanged, stopped once {@code cancelled} is true. */
    public static Replica local(BooleanSupplier cancelled) {
      return new Replica(m -> GradientReducer.LOCAL, false, cancelled, m -> {});
    }
  }

  /**
   * Trains a link model from link shards; validation scores the link batches of {@code valShards}
   * ({@code --val-shards}), or else the store's held-out val edges of the link relation with the
   * shards' fanouts (none when the graph is not a store).
   */
  private static Result trainLink(
      TypedTrainRequest r,
      TypedShardSet set,
      TypedModelConfig cfg,
      TypedLinkTask task,
      TypedTrainOptions opts,
      PrintStream progress,
      Replica replica,
      long t0,
      TypedTrainMemory memory,
      TypedEpochs valShards) {
    HeldOutEdges val =
        valShards == null && r.graph() instanceof TypedGraphStore s
            ? HeldOutEdges.read(s, StoreLayout.HELD_OUT_SPLITS.get(0))
            : null;
    try (TypedRowCaches caches =
            r.cache() == null ? null : TypedRowCaches.open(r.graph(), cfg, r.cache());
        // validation shards are read from the files too, through caches that hold nothing
        TypedRowCaches valCaches =
            r.cache() == null || valShards == null
                ? null
                : TypedRowCaches.open(r.graph(), cfg, r.cache().none());
        Backend be = precise(Backends.select(r.backend(), r.deviceOrdinal()), r.precision());
        TypedModel model = new TypedModel(cfg, be, task.decoder());
        TypedInPlaceRows rows = inPlace(r, set, cfg, be, progress)) {
      readInPlace(model, rows, memory);
      GradientReducer reducer = replica.reducerFor().apply(model);
      TypedLinkTrainer.FitResult fit;
      double wait;
      try (TypedLinkTrainer trainer =
          new TypedLinkTrainer(
              model,
              r.graph(),
              task,
              replicaEpochs(set, r, reducer, caches, cfg, progress),
              set.manifest().typed.fanouts(),
              opts,
              reducer)) {
        trainer
            .cancelWhen(replica.cancelled())
            .stopEarly(new EarlyStop(r.earlyStop()))
            .validateOn(
                valCaches == null
                    ? valShards
                    : TypedCachedStream.through(valShards, valCaches, cfg, r.cachePrefetch(), null))
            .reuseHot(r.reuse());
        model.init(r.seed());
        fit = trainer.fit(r.modelDir(), val, progress);
        if (progress != null && r.reuse().enabled()) {
          progress.println("hot reuse " + trainer.reuseStats());
        }
        wait = trainer.dataWaitSeconds();
        replica.afterFit().accept(model);
      }
      reportCache(caches, progress);
      return new Result(
          cfg,
          fit.epochsRun(),
          fit.lastLoss(),
          (System.nanoTime() - t0) / 1e9,
          null,
          fit.bestValAuc(),
          fit.lastVal(),
          wait);
    }
  }

  /**
   * {@code be} computing its dense products in {@code precision} ({@link Backend#matmulPrecision},
   * as the one-type trainer sets it); closes {@code be} and rethrows when it cannot.
   */
  static Backend precise(Backend be, MatmulPrecision precision) {
    try {
      be.matmulPrecision(precision);
      return be;
    } catch (RuntimeException e) {
      be.close();
      throw e;
    }
  }

  /** This replica's share of the shards' batches ({@code reducer}'s rank of its replicas). */
  private static TypedEpochs replicaEpochs(
      TypedShardSet set,
      TypedTrainRequest r,
      GradientReducer reducer,
      TypedRowCaches caches,
      TypedModelConfig cfg,
      PrintStream progress) {
    TypedEpochs mine =
        TypedEpochs.shards(set, r.verify(), r.loading()).share(WorkerShare.of(reducer));
    return caches == null
        ? mine
        : TypedCachedStream.through(mine, caches, cfg, r.cachePrefetch(), progress);
  }

  /** The rows {@code be} reads in place for the run's resolved feature access, or null. */
  private static TypedInPlaceRows inPlace(
      TypedTrainRequest r,
      TypedShardSet set,
      TypedModelConfig cfg,
      Backend be,
      PrintStream progress) {
    TypedShardSet val = r.valShards() == null ? null : TypedShardSet.open(r.valShards());
    return TypedInPlaceRows.open(
        r.featureAccess(), r.graph(), set, val, r.cache() != null, cfg, be, progress);
  }

  /**
   * Gives {@code model} the rows its backend reads in place ({@code rows} null: none, it takes them
   * from the host) and checks the heap bound of the built model with them.
   */
  private static void readInPlace(
      TypedModel model, TypedInPlaceRows rows, TypedTrainMemory memory) {
    if (rows != null) {
      model.readFeaturesFrom(rows.rows());
    }
    memory.rowsInPlace(rows != null).check(model.numParams(), Runtime.getRuntime().maxMemory());
  }

  /** The run's feature caches' totals, once it trained (nothing without a cache or a log). */
  private static void reportCache(TypedRowCaches caches, PrintStream progress) {
    if (caches != null && progress != null) {
      progress.println(caches.line("run", null));
    }
  }

  /** The seeds a batch of validation or evaluation takes: the shards' batch size, or 512. */
  static int batchSize(ShardManifest m) {
    String b = m.options == null ? null : m.options.get("batch-size");
    try {
      return b == null ? 512 : Math.max(1, Integer.parseInt(b));
    } catch (NumberFormatException e) {
      return 512;
    }
  }

  /**
   * The batches of {@code --val-shards}, read as the training shards are; refuses shards of another
   * schema, seed type, task or hop count than the run's.
   */
  private static TypedEpochs valShards(
      TypedTrainRequest r, TypedSchema schema, TypedModelConfig cfg, int hops) {
    int target = cfg.target();
    TypedShardSet v = TypedShardSet.open(r.valShards());
    checkShards(v, schema);
    checkInlineFeatures(v, cfg, "--val-shards");
    v = storeDecoders(v, r.graph(), "--val-shards");
    TypedInPlaceRows.check(r.featureAccess(), r.graph(), v, "--val-shards", false);
    checkCacheOverInlineRows(v, r.cache(), "--val-shards");
    ShardManifest.Typed t = v.manifest().typed;
    if (t.linkRelation != null || v.seedType() != target || t.layers != hops) {
      String holds =
          t.linkRelation != null
              ? "link batches of '" + t.linkRelation + "'"
              : "seed type '" + t.seedType + "'";
      throw new InvalidInputException(
          "--val-shards "
              + r.valShards()
              + " hold "
              + holds
              + " and "
              + t.layers
              + " hops; the training shards hold seed type '"
              + schema.type(target).name()
              + "' and "
              + hops
              + " hops: sample them from the val split with the same --fanouts");
    }
    return TypedEpochs.shards(v, r.verify(), r.loading());
  }

  /**
   * The link batches of {@code --val-shards} for a link model trained on {@code train}, read as the
   * training shards are: the held-out pairs of the same store and link relation ({@code sample
   * --task link --split val}) with the training shards' hop count. Refuses, with one line naming
   * both shard sets, node batches, another relation, another store, the training edges (split
   * {@code train}) and another hop count.
   */
  private static TypedEpochs linkValShards(
      TypedTrainRequest r,
      TypedShardSet train,
      TypedSchema schema,
      TypedModelConfig cfg,
      int hops) {
    TypedShardSet v = TypedShardSet.open(r.valShards());
    checkShards(v, schema);
    ShardManifest.Typed t = v.manifest().typed;
    ShardManifest tm = train.manifest();
    String link = tm.typed.linkRelation;
    String what = null;
    if (t.linkRelation == null) {
      what = "node batches of seed type '" + t.seedType + "'";
    } else if (!t.linkRelation.equals(link)) {
      what = "link batches of relation '" + t.linkRelation + "'";
    } else if (v.manifest().storeFingerprint != null
        && tm.storeFingerprint != null
        && !v.manifest().storeFingerprint.equals(tm.storeFingerprint)) {
      what =
          "link batches of another store (fingerprint "
              + v.manifest().storeFingerprint
              + ", the training shards' "
              + tm.storeFingerprint
              + ")";
    } else if (!StoreLayout.HELD_OUT_SPLITS.contains(v.manifest().split)) {
      what = "the training edges of '" + link + "' (split " + v.manifest().split + ")";
    } else if (t.layers != hops) {
      what = t.layers + "-hop link batches";
    }
    if (what != null) {
      throw new InvalidInputException(
          "--val-shards "
              + r.valShards()
              + " hold "
              + what
              + "; the training shards "
              + r.shards()
              + " hold "
              + hops
              + "-hop link batches of relation '"
              + link
              + "': sample them from the same store with sample --task link --split val and the"
              + " same number of --fanouts");
    }
    checkInlineFeatures(v, cfg, "--val-shards");
    v = storeDecoders(v, r.graph(), "--val-shards");
    TypedInPlaceRows.check(r.featureAccess(), r.graph(), v, "--val-shards", false);
    checkCacheOverInlineRows(v, r.cache(), "--val-shards");
    return TypedEpochs.shards(v, r.verify(), r.loading());
  }

  /**
   * Refuses shards whose inline feature rows ({@code sample --features}) the model cannot read as
   * it would gather them: a type the model embeds ({@code --learned-embeddings all}) while the
   * shards carry its rows, or rows of another width than the type's. {@code option} names the
   * shards' option ({@code --shards}, {@code --val-shards}).
   */
  static void checkInlineFeatures(TypedShardSet set, TypedModelConfig cfg, String option) {
    int[] dims = set.featureDims();
    if (dims == null) {
      return;
    }
    for (int t = 0; t < cfg.numTypes(); t++) {
      TypedModelConfig.TypeInput in = cfg.type(t);
      if (in.embedded() && dims[t] > 0) {
        throw new FanoutConfigException(
            "train --learned-embeddings: type '"
                + in.name()
                + "' reads a learned embedding but "
                + option
                + " "
                + set.dir()
                + " inline its feature rows (sample --features "
                + set.featureEncoding().id()
                + "); use --learned-embeddings auto or shards sampled without --features");
      }
      if (!in.embedded() && dims[t] != in.featureDim()) {
        throw new InvalidInputException(
            option
                + " "
                + set.dir()
                + " inline "
                + dims[t]
                + " features per row of type '"
                + in.name()
                + "'; the graph's type has "
                + in.featureDim()
                + ": sample them from this store");
      }
    }
  }

  /**
   * Refuses a feature cache over shards that inline their feature rows, as one-type training does:
   * the rows come with every batch, so there is nothing for the cache to read or hold (a design
   * choice, not a gap), whether they are the training shards or the validation ones ({@code option}
   * names them). {@code cache} null: no cache, nothing refused.
   */
  static void checkCacheOverInlineRows(TypedShardSet set, TypedCacheSettings cache, String option) {
    if (cache != null && set.featureDims() != null) {
      throw new FanoutConfigException(
          "train --feature-cache "
              + cache.policy().id()
              + " reads feature rows from the store's files, and "
              + option
              + " "
              + set.dir()
              + " inline them (sample --features "
              + set.featureEncoding().id()
              + "), so every row already comes with its batch and there is nothing to cache:"
              + " leave --feature-cache out, or use shards sampled without --features");
    }
  }

  /**
   * Shards that inline the store's encoded rows ({@code sample --features int8|int4|pq}) with each
   * featured type's rows decoded by {@code g}'s decoder of that type, once the type's parameters
   * are the ones the rows were encoded with (the CRC32C the shards record); other shards as they
   * are. {@code option} names the shards' option.
   *
   * @throws InvalidInputException when a type's parameters differ or {@code g} keeps no encoded
   *     rows of it, naming the type
   */
  static TypedShardSet storeDecoders(TypedShardSet set, TypedGraph g, String option) {
    List<String> crcs = set.featureParamsCrc32c();
    if (crcs == null) {
      return set;
    }
    int[] dims = set.featureDims();
    RowDecoder[] decoders = new RowDecoder[dims.length];
    for (int t = 0; t < dims.length; t++) {
      if (dims[t] == 0) {
        continue;
      }
      String name = g.schema().type(t).name();
      String have = g.featureParamsCrc32c(t);
      FeatureTable table = g.features(t);
      decoders[t] = table == null ? null : table.decoder();
      if (have == null || !have.equalsIgnoreCase(crcs.get(t)) || decoders[t] == null) {
        throw new InvalidInputException(
            option
                + " "
                + set.dir()
                + " inline type '"
                + name
                + "''s "
                + set.featureEncoding().id()
                + " rows encoded with parameters of CRC32C "
                + crcs.get(t)
                + ", but the graph store's type '"
                + name
                + "' has "
                + (have == null ? "no such parameters" : "parameters of CRC32C " + have)
                + "; train on the store the shards were sampled from");
      }
    }
    return set.withDecoders(decoders);
  }

  /** Refuses shards sampled from another schema than {@code schema}'s. */
  static void checkShards(TypedShardSet set, TypedSchema schema) {
    ShardManifest.Typed t = set.manifest().typed;
    boolean same =
        t.types.size() == schema.numTypes() && t.relations.size() == schema.numRelations();
    for (int i = 0; same && i < schema.numTypes(); i++) {
      same = t.types.get(i).equals(schema.type(i).name());
    }
    for (int r = 0; same && r < schema.numRelations(); r++) {
      same = t.relations.get(r).name.equals(schema.relation(r).name());
    }
    if (!same) {
      throw new InvalidInputException(
          "typed shards "
              + set.dir()
              + " were sampled from types "
              + t.types
              + " and other relations than the graph's ("
              + schema.types().stream().map(TypedSchema.VertexType::name).toList()
              + "): sample them from this store");
    }
  }

  /** Trains on one replica, stopped once {@code cancelled} is true. */
  public static Result train(TypedTrainRequest r, PrintStream progress, BooleanSupplier cancelled) {
    return train(r, progress, Replica.local(cancelled));
  }

  /**
   * Trains as one replica of a data-parallel run ({@link Replica}); every replica gets the same
   * request.
   */
  public static Result train(TypedTrainRequest r, PrintStream progress, Replica replica) {
    TypedShardSet set = TypedShardSet.open(r.shards());
    TypedSchema schema = r.graph().schema();
    checkShards(set, schema);
    int hops = set.manifest().typed.layers;
    if (r.layers() != 0 && r.layers() != hops) {
      throw new InvalidInputException(
          "--layers "
              + r.layers()
              + " but the typed shards "
              + r.shards()
              + " hold "
              + hops
              + " hops");
    }
    String link = set.manifest().typed.linkRelation;
    int target = set.seedType();
    if (link == null && r.decoder() != DecoderKind.DOT) {
      throw new InvalidInputException(
          "--decoder "
              + r.decoder().id()
              + " scores link pairs; the typed shards "
              + r.shards()
              + " are node-classification shards (sample them with --task link)");
    }
    TypedLinkTask task = link == null ? null : TypedLinkTask.of(schema, link, r.decoder());
    TypedModelConfig cfg =
        (task == null
                ? TypedModelConfig.of(
                    schema,
                    target,
                    TypedModelKind.of(r.model()),
                    r.hidden(),
                    hops,
                    r.dropout(),
                    r.bases(),
                    r.embeddings())
                : TypedModelConfig.ofLink(
                    schema,
                    task.relation(),
                    TypedModelKind.of(r.model()),
                    r.hidden(),
                    hops,
                    r.dropout(),
                    r.bases(),
                    r.embeddings()))
            .withFeatureNorm(r.featureNorm())
            .withHgn(r.hgn());
    if (!r.resume() && !replica.retry() && TypedCheckpoint.exists(r.modelDir())) {
      throw new InvalidInputException(
          "model dir "
              + r.modelDir()
              + " already holds a checkpoint; pass --resume to continue it or choose another"
              + " --model-dir");
    }
    checkInlineFeatures(set, cfg, "--shards");
    set = storeDecoders(set, r.graph(), "--shards");
    TypedInPlaceRows.check(r.featureAccess(), r.graph(), set, "--shards", r.cache() != null);
    checkCacheOverInlineRows(set, r.cache(), "--shards");
    TypedTrainMemory memory =
        new TypedTrainMemory(
            cfg,
            TypedTrainMemory.rowBytes(r.graph(), cfg),
            r.cache(),
            set.manifest(),
            r.loading(),
            r.featureAccess());
    memory.check(0, Runtime.getRuntime().maxMemory());
    TypedTrainOptions opts =
        new TypedTrainOptions(
            r.epochs(),
            batchSize(set.manifest()),
            r.lr(),
            r.weightDecay(),
            r.seed(),
            r.schedule(),
            r.precision());
    long t0 = System.nanoTime();
    if (task != null) {
      TypedEpochs val = r.valShards() == null ? null : linkValShards(r, set, schema, cfg, hops);
      return trainLink(r, set, cfg, task, opts, progress, replica, t0, memory, val);
    }
    TypedEpochs val = r.valShards() == null ? null : valShards(r, schema, cfg, hops);
    TypedSampler sampler =
        TypedSampler.of(
            new TypedNeighborSampler(r.graph(), target, set.manifest().typed.fanouts(), r.seed()));
    try (TypedRowCaches caches =
            r.cache() == null ? null : TypedRowCaches.open(r.graph(), cfg, r.cache());
        // validation shards are read from the files too, through caches that hold nothing
        TypedRowCaches valCaches =
            r.cache() == null || val == null
                ? null
                : TypedRowCaches.open(r.graph(), cfg, r.cache().none());
        Backend be = precise(Backends.select(r.backend(), r.deviceOrdinal()), r.precision());
        TypedModel model = new TypedModel(cfg, be);
        TypedInPlaceRows rows = inPlace(r, set, cfg, be, progress)) {
      readInPlace(model, rows, memory);
      GradientReducer reducer = replica.reducerFor().apply(model);
      TypedTrainer.FitResult fit;
      double wait;
      TypedEpochs valRead =
          valCaches == null
              ? val
              : TypedCachedStream.through(val, valCaches, cfg, r.cachePrefetch(), null);
      try (TypedTrainer trainer =
          new TypedTrainer(
              model,
              r.graph(),
              replicaEpochs(set, r, reducer, caches, cfg, progress),
              sampler,
              opts,
              reducer)) {
        trainer
            .cancelWhen(replica.cancelled())
            .stopEarly(new EarlyStop(r.earlyStop()))
            .validateOn(valRead)
            .reuseHot(r.reuse());
        model.init(r.seed());
        fit = trainer.fit(r.modelDir(), progress);
        if (progress != null && r.reuse().enabled()) {
          progress.println("hot reuse " + trainer.reuseStats());
        }
        wait = trainer.dataWaitSeconds();
        replica.afterFit().accept(model);
      }
      reportCache(caches, progress);
      return new Result(
          cfg,
          fit.epochsRun(),
          fit.lastLoss(),
          (System.nanoTime() - t0) / 1e9,
          fit.lastVal(),
          fit.bestValMicroF1(),
          null,
          wait);
    }
  }
}
