package io.fanout.train;

import io.fanout.graph.GraphStore;
import io.fanout.nn.ModelConfig;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreManifest;
import io.fanout.tensor.Backends;
import java.nio.file.Path;

/** A trained model's checkpoint, read from its model dir and checked against a store. */
public final class TrainedModels {
  private TrainedModels() {}

  /** Whether checkpoint {@code ck} is of a link-prediction model. */
  static boolean isLink(Checkpoint ck) {
    return "link".equals(ck.meta().get("identity." + LinkStep.TASK));
  }

  /** The task of the model in {@code modelDir}: {@code link} or {@code node}. */
  public static String task(Path modelDir, CheckpointPick pick) {
    return isLink(Checkpoint.readForInference(modelDir, pick)) ? "link" : "node";
  }

  /**
   * A trained model loaded from its model dir and checked against a store, with its backend; the
   * caller closes the lease.
   */
  static ModelLease load(Path modelDir, CheckpointPick pick, GraphStore store) {
    return load(modelDir, Checkpoint.readForInference(modelDir, pick), store);
  }

  /**
   * As {@link #load(Path, Checkpoint, GraphStore)}; when {@code trainedOn} is not null,
   * inductively: {@code store} may be another store than the one the model was trained on, {@code
   * trainedOn}, provided it passes {@link InductiveCheck}.
   */
  static ModelLease load(Path modelDir, Checkpoint ck, GraphStore store, Path trainedOn) {
    if (trainedOn == null) {
      return load(modelDir, ck, store);
    }
    if (ck.modelConfig().learnedInput()) {
      throw new InvalidInputException(
          "--trained-on: the model in "
              + modelDir
              + " learned one embedding per vertex of the store it was trained on"
              + " (--learned-embeddings), so it has none for another store's vertices; infer it on"
              + " its own store");
    }
    InductiveCheck.require(
        modelDir, ck, trainedOn, StoreManifest.read(trainedOn), store.root(), store.manifest());
    return loadChecked(modelDir, ck, store);
  }

  /**
   * As {@link #load(Path, String, GraphStore)}, of checkpoint {@code ck} read from {@code
   * modelDir}.
   */
  static ModelLease load(Path modelDir, Checkpoint ck, GraphStore store) {
    ModelConfig cfg = ck.modelConfig();
    StoreManifest m = store.manifest();
    if (!cfg.learnedInput() && cfg.inDim() != m.featureDim) {
      throw new InvalidInputException(
          "the model in "
              + modelDir
              + " takes "
              + cfg.inDim()
              + " features but "
              + store.root()
              + " has feature_dim "
              + m.featureDim);
    }
    if (cfg.classes() != m.classes && !isLink(ck)) {
      throw new InvalidInputException(
          "the model in "
              + modelDir
              + " predicts "
              + cfg.classes()
              + " classes but "
              + store.root()
              + " has "
              + m.classes);
    }
    String graph = ck.meta().get("identity.graph");
    if (graph != null && !graph.equals(StoreFingerprints.of(m))) {
      throw new InvalidInputException(
          "the model in "
              + modelDir
              + " was trained on another graph store (fingerprint "
              + graph
              + "), not "
              + store.root()
              + " ("
              + StoreFingerprints.of(m)
              + ")");
    }
    return loadChecked(modelDir, ck, store);
  }

  /** The model of checkpoint {@code ck}, checked against the store that feeds it: its width. */
  private static ModelLease loadChecked(Path modelDir, Checkpoint ck, GraphStore store) {
    ModelConfig cfg = ck.modelConfig();
    if (cfg.learnedInput() && cfg.embeddingRows() != store.manifest().vertices) {
      throw new InvalidInputException(
          "the model in "
              + modelDir
              + " learned embeddings of "
              + cfg.embeddingRows()
              + " vertices but "
              + store.root()
              + " has "
              + store.manifest().vertices);
    }
    if (!cfg.learnedInput() && cfg.inDim() != store.manifest().featureDim) {
      throw new InvalidInputException(
          "the model in "
              + modelDir
              + " takes "
              + cfg.inDim()
              + " features but "
              + store.root()
              + " has feature_dim "
              + store.manifest().featureDim);
    }
    ModelLease lease = ModelLease.open(cfg, Backends.select());
    try {
      lease.model().loadParams(ck.params());
      ModelDirFiles.readEmbeddings(modelDir, ck, lease.model());
    } catch (RuntimeException e) {
      try {
        lease.close();
      } catch (RuntimeException x) {
        e.addSuppressed(x);
      }
      throw e;
    }
    return lease;
  }
}
