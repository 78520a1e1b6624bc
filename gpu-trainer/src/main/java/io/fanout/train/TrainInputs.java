package io.fanout.train;

import io.fanout.graph.GraphStore;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.FeatureNormKind;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.ShardManifest;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;

/**
 * Checks that a training run's inputs fit together before anything trains: the store, the shards
 * (and validation shards), the model's layers and the feature access.
 */
public final class TrainInputs {
  private TrainInputs() {}

  /** Number of hops of the shards' batches: the manifest's fanouts, else the first batch's. */
  static int shardLayers(ShardSet shards, GraphStore store, boolean verify) {
    if (shards.layers() > 0) {
      return shards.layers();
    }
    EpochData d =
        shards.epochData(
            store.features(), store.manifest().featureDim, FeatureNormKind.NONE, 1, 1, verify);
    try (BatchStream s = d.open(0)) {
      TrainBatch b = s.next();
      if (b == null) {
        throw new InvalidInputException("shards in " + shards.dir() + " hold no batches");
      }
      return b.batch().layers();
    }
  }

  /** Checks that the shards were sampled from {@code store} and fit its features. */
  static void checkShardsMatch(ShardSet shards, GraphStore store) {
    ShardManifest sm = shards.manifest();
    StoreManifest m = store.manifest();
    if (sm.storeVertices != m.vertices || sm.storeEdges != m.edges) {
      throw new InvalidInputException(
          "shards in "
              + shards.dir()
              + " were sampled from a graph of "
              + sm.storeVertices
              + " vertices and "
              + sm.storeEdges
              + " edges but "
              + store.root()
              + " has "
              + m.vertices
              + " and "
              + m.edges
              + ": they come from another graph store");
    }
    if (sm.storeFingerprint != null) {
      String fp = m.fingerprint();
      if (!sm.storeFingerprint.equalsIgnoreCase(fp)) {
        throw new InvalidInputException(
            "shards in "
                + shards.dir()
                + " were sampled from another graph store: their store_fingerprint is "
                + sm.storeFingerprint
                + " but "
                + store.root()
                + " has fingerprint "
                + fp);
      }
    }
    if (sm.featureEncoding().stored()) {
      StoreManifest.FileEntry params = m.file(StoreLayout.FEATURE_PARAMS);
      String crc = params == null ? null : params.crc32c;
      if (!sm.features.equals(m.featureEncoding)
          || sm.featureParamsCrc32c == null
          || !sm.featureParamsCrc32c.equalsIgnoreCase(String.valueOf(crc))) {
        throw new InvalidInputException(
            "shards in "
                + shards.dir()
                + " inline "
                + sm.features
                + " rows encoded with parameters of CRC32C "
                + sm.featureParamsCrc32c
                + ", but "
                + store.root()
                + " stores "
                + m.featureEncoding
                + " features"
                + (crc == null ? "" : " with parameters of CRC32C " + crc)
                + "; train on the store the shards were sampled from");
      }
    }
    if (sm.featureEncoding() != FeatureEncoding.NONE && sm.featureDim != m.featureDim) {
      throw new InvalidInputException(
          "shards in "
              + shards.dir()
              + " inline features of dimension "
              + sm.featureDim
              + " but "
              + store.root()
              + " has feature_dim "
              + m.featureDim);
    }
  }

  /**
   * Checks, from the manifests alone, that {@code spec} can train: the store has features and at
   * least two classes, the shards (and validation shards) were sampled from this store, and the
   * model's layers match the shards' hops; with {@code spec.inputs().verify()} also that the
   * store's files match their CRC32C (once per process, see {@link
   * GraphStore#verifyChecksumsOnce}). Callers that start training elsewhere (a Spark task) call it
   * first, so bad input fails where it was given.
   *
   * @throws InvalidInputException naming the store or shards and what was expected
   */
  public static void check(TrainSpec spec) {
    try (GraphStore store = GraphStore.open(spec.inputs().graph(), spec.inputs().verify())) {
      check(spec, store, ShardSet.open(spec.inputs().shards()));
    }
  }

  /** {@link #check(TrainSpec)} on opened inputs; returns the shards' hops. */
  static int check(TrainSpec spec, GraphStore store, ShardSet shards) {
    StoreManifest m = store.manifest();
    boolean learned = spec.features().learns(m.featureDim);
    if (m.featureDim <= 0 && !learned) {
      throw new InvalidInputException(
          "graph store "
              + spec.inputs().graph()
              + " has no features (feature_dim 0) and --learned-embeddings "
              + spec.features().learned().id()
              + " reads them; pass"
              + " --learned-embeddings auto to learn one vector per vertex, or prepare with a"
              + " features column");
    }
    if (learned) {
      checkLearned(spec, shards);
    }
    boolean link = isLink(shards);
    if (m.classes < 2 && !link) {
      throw new InvalidInputException(
          "graph store "
              + spec.inputs().graph()
              + " has "
              + m.classes
              + " classes; training needs >= 2");
    }
    if (!link && spec.architecture().decoder() != DecoderKind.DOT) {
      throw new InvalidInputException(
          "--decoder "
              + spec.architecture().decoder().id()
              + " with node-classification shards ("
              + spec.inputs().shards()
              + "): a decoder scores pairs of a link model; sample with --task link or leave"
              + " --decoder out");
    }
    if (link && spec.inputs().valShards() != null) {
      throw new InvalidInputException(
          "--val-shards with link-prediction shards ("
              + spec.inputs().shards()
              + "): link models are validated by evaluate on the store's held-out edges; leave"
              + " --val-shards out");
    }
    EarlyStop stop = new EarlyStop(spec.optimization().earlyStop());
    if (stop.on() && spec.inputs().valShards() == null) {
      throw stop.needsValidation(
          link
              ? "one-type link models are not validated while training (evaluate scores the"
                  + " store's held-out edges); leave --early-stop out"
              : "give --val-shards (sample --split val) or leave --early-stop out");
    }
    if (!learned) {
      checkFeatureAccess(spec, store, shards);
    }
    checkShardsMatch(shards, store);
    int hops = shardLayers(shards, store, spec.inputs().verify());
    if (spec.architecture().layers() > 0 && spec.architecture().layers() != hops) {
      throw new InvalidInputException(
          "--layers "
              + spec.architecture().layers()
              + " but the shards in "
              + spec.inputs().shards()
              + " hold "
              + hops
              + "-hop samples; sample with "
              + spec.architecture().layers()
              + " fanouts or pass --layers "
              + hops);
    }
    if (spec.inputs().valShards() != null) {
      checkShardsMatch(ShardSet.open(spec.inputs().valShards()), store);
    }
    return hops;
  }

  /**
   * Refuses, naming the option, what cannot serve a learned input table (rows that change every
   * step, kept by the trainer on the host): a feature cache, in-place feature access, reuse of hot
   * embeddings, shards with inline feature rows.
   */
  static void checkLearned(TrainSpec spec, ShardSet shards) {
    String why = null;
    if (spec.features().cache() != null) {
      why = "--feature-cache caches the store's feature rows; drop --feature-cache";
    } else if (spec.features().readsInPlace()) {
      why =
          "--feature-access "
              + spec.features().access().id()
              + " reads the store's feature rows in place; use --feature-access gather or auto";
    } else if (spec.reuse().enabled()) {
      why = "--reuse-hot reuses embeddings computed from fixed input rows; drop --reuse-hot";
    } else if (shards.featureEncoding() != FeatureEncoding.NONE) {
      why =
          "shards "
              + spec.inputs().shards()
              + " inline "
              + shards.featureEncoding()
              + " feature rows (sample --features); sample them without inline features";
    }
    if (why != null) {
      throw new InvalidInputException(
          "--learned-embeddings "
              + spec.features().learned().id()
              + " trains one vector per vertex instead of reading feature rows, and "
              + why);
    }
  }

  /**
   * Checks that {@code spec.features().access()} can read this store's features for these shards:
   * zero-copy and device read the store's rows in place (f32 as stored, quantized rows decoded by
   * the backend, on a GPU by a kernel from the encoded bytes, then normalized there by {@code
   * --feature-norm}), or, with a feature cache, from the cache's pages the backend reads in place;
   * so they refuse shards with inline features, and a feature norm together with a feature cache
   * (the pages are read as stored). Device mode also refuses a feature cache. Auto is checked when
   * it is resolved ({@link FeatureAccessChoice}).
   */
  static void checkFeatureAccess(TrainSpec spec, GraphStore store, ShardSet shards) {
    FeatureAccessMode access = spec.features().access();
    if (!access.readsInPlace()) {
      return;
    }
    String refusal = inPlaceRefusal(spec, shards);
    if (refusal != null) {
      throw new InvalidInputException(
          "--feature-access " + access.id() + " cannot be used: " + refusal);
    }
    if (access == FeatureAccessMode.DEVICE && spec.features().cache() != null) {
      throw new InvalidInputException(
          "--feature-access device holds every row in device memory and takes no --feature-cache;"
              + " drop --feature-cache, or use --feature-access zero-copy to cache rows in host"
              + " memory");
    }
  }

  /**
   * Why the backend cannot read this run's feature rows in place, or null when it can: shards with
   * inline features, or a feature norm with a feature cache (its pages are read as stored).
   */
  static String inPlaceRefusal(TrainSpec spec, ShardSet shards) {
    if (shards.featureEncoding() != FeatureEncoding.NONE) {
      return "shards "
          + spec.inputs().shards()
          + " inline "
          + shards.featureEncoding()
          + " features, and in-place feature reads take node-id-only shards (sample without"
          + " inline features), or use --feature-access gather";
    }
    if (spec.architecture().featureNorm() != FeatureNormKind.NONE
        && spec.features().cache() != null) {
      return "a feature cache read in place serves the rows as stored and cannot apply"
          + " --feature-norm "
          + spec.architecture().featureNorm().id()
          + "; pass --feature-norm none (or normalize the features before prepare), or drop"
          + " --feature-cache";
    }
    return null;
  }

  /** Whether {@code shards} hold link-prediction batches ({@code sample --task link}). */
  static boolean isLink(ShardSet shards) {
    return "link".equals(shards.manifest().options.get("task"));
  }
}
