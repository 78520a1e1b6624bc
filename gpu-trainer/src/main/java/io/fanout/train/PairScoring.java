package io.fanout.train;

import io.fanout.graph.GraphStore;
import io.fanout.nn.GnnModel;
import io.fanout.store.Checksums;
import io.fanout.store.InvalidInputException;
import java.nio.file.Path;

/** Scores of candidate vertex pairs by a trained link model, written as Parquet. */
public final class PairScoring {
  private PairScoring() {}

  /**
   * What {@link #score} scores and where it writes the scores.
   *
   * @param pairs the candidate pairs, by dense and original ids
   * @param output the output directory (Parquet: src, dst, score)
   * @param overwrite replace an output of another request (else it is an error)
   * @param pick the checkpoint, {@code last} or {@code best}
   * @param verify check the store's files against their CRC32C first (once per process)
   */
  public record Request(
      Path graph,
      Path modelDir,
      CandidatePairs pairs,
      Path output,
      boolean overwrite,
      CheckpointPick pick,
      boolean verify) {}

  /**
   * What {@link #score} did.
   *
   * @param rows pairs scored (one row each)
   * @param skipped a complete output of the same request (store, model file, pairs) was kept
   */
  public record Outcome(long rows, boolean skipped) {}

  /**
   * Scores candidate pairs with the link model in {@code r.modelDir()}, by its decoder over
   * full-neighbor embeddings of the training graph (as {@link ModelEvaluation#linkMetrics}), and
   * writes them in the pairs' order, committed atomically ({@link PairScoreWriter}). An output that
   * already holds the same request is kept; one of another request is replaced only with {@code
   * overwrite}.
   *
   * @throws InvalidInputException when the model is not a link model, a dense id is outside the
   *     store, or the output holds another request without {@code overwrite}
   */
  public static Outcome score(Request r) {
    try (GraphStore store = GraphStore.open(r.graph(), r.verify())) {
      Checkpoint ck = Checkpoint.readForInference(r.modelDir(), r.pick());
      if (!TrainedModels.isLink(ck)) {
        throw notALinkModel(r.modelDir());
      }
      CandidatePairs p = r.pairs();
      int n = store.csr().numVertices();
      p.requireInside(n, n, "dense ids", "but " + store.root() + " has vertices 0.." + (n - 1));
      return write(
          p,
          store.manifest().fingerprint(),
          r,
          pairs -> {
            float[] scores = new float[pairs.size()];
            try (ModelLease lease = TrainedModels.load(r.modelDir(), ck, store)) {
              GnnModel model = lease.model();
              float[] emb = VertexOutputs.logits(model, store, null, 0, 0, -1);
              LinkStep.scores(
                  model,
                  LinkStep.logitScale(ck.meta()),
                  emb,
                  model.config().classes(),
                  p.src(),
                  p.dst(),
                  p.size(),
                  scores);
            }
            return scores;
          });
    }
  }

  /** The refusal of pair scoring by the model in {@code modelDir}, a node classifier. */
  public static InvalidInputException notALinkModel(Path modelDir) {
    return new InvalidInputException(
        "the model in "
            + modelDir
            + " is a node classifier; scoring pairs needs a model trained on sample --task link"
            + " shards");
  }

  /**
   * Keeps {@code r.output()} when it holds the scores of the same request (store {@code
   * storeFingerprint}, the model file, the pairs), else scores the pairs with {@code scorer} and
   * writes them in the pairs' order, committed atomically; the one-type and typed link models share
   * it.
   */
  public static Outcome write(
      CandidatePairs p,
      String storeFingerprint,
      Request r,
      java.util.function.Function<CandidatePairs, float[]> scorer) {
    String request =
        Checksums.sha256(
            "pairs|"
                + storeFingerprint
                + "|"
                + StoreFingerprints.ofFile(Checkpoint.inferenceFile(r.modelDir(), r.pick()))
                + "|"
                + p.fingerprint());
    long kept = IdKeyedParquet.rowsToKeep(r.output(), request, r.overwrite(), "pair scores");
    if (kept >= 0) {
      return new Outcome(kept, true);
    }
    return new Outcome(PairScoreWriter.write(p, scorer.apply(p), r.output(), request), false);
  }
}
