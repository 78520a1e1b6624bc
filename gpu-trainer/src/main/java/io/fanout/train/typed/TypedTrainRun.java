package io.fanout.train.typed;

import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedSchema;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.ModelKind;
import io.fanout.nn.typed.HgnSettings;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.sample.TypedNeighborSampler;
import io.fanout.shard.ShardManifest;
import io.fanout.shard.TypedShardSet;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.Backend;
import io.fanout.tensor.BackendKind;
import io.fanout.tensor.Backends;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;

/**
 * One typed training run from typed shards: checks the shards against the graph, builds the model
 * of the shards' seed type, trains (or resumes) it with {@link TypedTrainer#fit} into the model
 * dir. Validation samples the target type's val split with the shards' fanouts.
 */
public final class TypedTrainRun {
  private TypedTrainRun() {}

  /**
   * What a typed run trains.
   *
   * @param layers layers, or 0 for the shards' hops
   * @param resume continue the model dir's checkpoint; without it a model dir holding one is
   *     refused
   */
  public record Request(
      TypedGraph graph,
      Path shards,
      Path modelDir,
      boolean resume,
      ModelKind model,
      int hidden,
      int layers,
      float dropout,
      float lr,
      float weightDecay,
      int epochs,
      long seed,
      EmbeddingMode embeddings,
      int bases,
      FeatureNormKind featureNorm,
      BackendKind backend,
      boolean verify,
      HgnSettings hgn) {}

  /** What the run did. */
  public record Result(
      TypedModelConfig config,
      int epochsRun,
      double finalLoss,
      double seconds,
      F1Scores lastVal,
      double bestValMicroF1) {}

  /** The seeds a batch of validation or evaluation takes: the shards' batch size, or 512. */
  static int batchSize(ShardManifest m) {
    String b = m.options == null ? null : m.options.get("batch-size");
    try {
      return b == null ? 512 : Math.max(1, Integer.parseInt(b));
    } catch (NumberFormatException e) {
      return 512;
    }
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

  public static Result train(Request r, PrintStream progress, BooleanSupplier cancelled) {
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
    int target = set.seedType();
    for (TypedSchema.VertexType vt : schema.types()) {
      String enc = vt.featureEncoding();
      if (vt.hasFeatures()
          && !enc.equals("f32")
          && !enc.equals("f16")
          && !r.embeddings().embeds(vt.featureDim())) {
        throw new InvalidInputException(
            "typed training reads f32 or f16 features; type '"
                + vt.name()
                + "' is stored as "
                + enc
                + " (quantized features are not built for typed stores: prepare it with"
                + " --feature-encoding f32 or f16)");
      }
    }
    TypedModelConfig cfg =
        TypedModelConfig.of(
                schema,
                target,
                TypedModelKind.of(r.model()),
                r.hidden(),
                hops,
                r.dropout(),
                r.bases(),
                r.embeddings())
            .withFeatureNorm(r.featureNorm())
            .withHgn(r.hgn());
    if (!r.resume() && TypedCheckpoint.exists(r.modelDir())) {
      throw new InvalidInputException(
          "model dir "
              + r.modelDir()
              + " already holds a checkpoint; pass --resume to continue it or choose another"
              + " --model-dir");
    }
    TypedTrainOptions opts =
        new TypedTrainOptions(
            r.epochs(), batchSize(set.manifest()), r.lr(), r.weightDecay(), r.seed());
    TypedSampler sampler =
        TypedSampler.of(
            new TypedNeighborSampler(r.graph(), target, set.manifest().typed.fanouts(), r.seed()));
    long t0 = System.nanoTime();
    try (Backend be = Backends.select(r.backend(), -1);
        TypedModel model = new TypedModel(cfg, be);
        TypedTrainer trainer =
            new TypedTrainer(
                model, r.graph(), TypedEpochs.shards(set, r.verify()), sampler, opts)) {
      trainer.cancelWhen(cancelled);
      model.init(r.seed());
      TypedTrainer.FitResult fit = trainer.fit(r.modelDir(), progress);
      return new Result(
          cfg,
          fit.epochsRun(),
          fit.lastLoss(),
          (System.nanoTime() - t0) / 1e9,
          fit.lastVal(),
          fit.bestValMicroF1());
    }
  }
}
