package io.fanout.train;

import io.fanout.graph.GraphStore;
import io.fanout.graph.HeldOutEdges;
import io.fanout.nn.GnnModel;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Evaluation of a trained model on a store: accuracy per split of a node classifier, link metrics
 * of a link model on the held-out edges.
 */
public final class ModelEvaluation {
  private ModelEvaluation() {}

  /**
   * Accuracy per split ({@code train}, {@code val}, {@code test}) of the model in {@code modelDir}.
   */
  public static Map<String, Accuracy> accuracy(
      Path graph, Path modelDir, int[] fanouts, int batchSize, long seed) {
    return accuracy(graph, modelDir, Checkpoint.DEFAULT_PICK, fanouts, batchSize, seed);
  }

  /**
   * As {@link #accuracy(Path, Path, int[], int, long)}, of the checkpoint {@code pick} ({@code
   * last} or {@code best}; see {@link Checkpoint#readForInference(Path, String)}).
   */
  public static Map<String, Accuracy> accuracy(
      Path graph, Path modelDir, CheckpointPick pick, int[] fanouts, int batchSize, long seed) {
    return accuracy(graph, modelDir, pick, fanouts, batchSize, seed, true);
  }

  /**
   * As {@link #accuracy(Path, Path, String, int[], int, long)}; {@code verify} checks the store's
   * files against their CRC32C first (once per process, see {@link
   * GraphStore#verifyChecksumsOnce}).
   */
  public static Map<String, Accuracy> accuracy(
      Path graph,
      Path modelDir,
      CheckpointPick pick,
      int[] fanouts,
      int batchSize,
      long seed,
      boolean verify) {
    try (GraphStore store = GraphStore.open(graph, verify);
        ModelLease lease = TrainedModels.load(modelDir, pick, store)) {
      GnnModel model = lease.model();
      Map<String, Accuracy> out = new LinkedHashMap<>();
      float[] full = fanouts == null ? VertexOutputs.logits(model, store, null, 0, 0, -1) : null;
      for (byte split = StoreLayout.SPLIT_TRAIN; split <= StoreLayout.SPLIT_TEST; split++) {
        float[] lg =
            full != null
                ? full
                : VertexOutputs.logits(model, store, fanouts, batchSize, seed, split);
        out.put(
            StoreLayout.splitName(split),
            Evaluation.accuracy(lg, model.config().classes(), store.vertices(), split));
      }
      return out;
    }
  }

  /**
   * Link-prediction metrics ({@link LinkMetrics}) of the link model in {@code modelDir} on the
   * store's held-out {@code val} and {@code test} edges and their fixed negatives, scored as in
   * training ({@link LinkStep}: scaled cosine, or the model's MLP decoder) from full-neighbor
   * embeddings of the training graph.
   *
   * @throws InvalidInputException when the model is not a link model or the store has no edge split
   */
  public static Map<String, LinkMetrics> linkMetrics(
      Path graph, Path modelDir, CheckpointPick pick, boolean verify) {
    try (GraphStore store = GraphStore.open(graph, verify)) {
      HeldOutEdges.requireEdgeSplit(store.root(), store.manifest(), "link evaluation");
      Checkpoint ck = Checkpoint.readForInference(modelDir, pick);
      if (!TrainedModels.isLink(ck)) {
        throw new InvalidInputException(
            "the model in "
                + modelDir
                + " is a node classifier; link metrics need a model trained on sample --task"
                + " link shards");
      }
      float logitScale = LinkStep.logitScale(ck.meta());
      Map<String, LinkMetrics> out = new LinkedHashMap<>();
      try (ModelLease lease = TrainedModels.load(modelDir, ck, store)) {
        float[] emb = VertexOutputs.logits(lease.model(), store, null, 0, 0, -1);
        int dim = lease.model().config().classes();
        for (String split : StoreLayout.HELD_OUT_SPLITS) {
          HeldOutEdges h = HeldOutEdges.read(store, split);
          float[] scores = new float[h.size()];
          LinkStep.scores(lease.model(), logitScale, emb, dim, h.src, h.dst, h.size(), scores);
          out.put(split, LinkMetrics.of(h, scores));
        }
      }
      return out;
    }
  }
}
