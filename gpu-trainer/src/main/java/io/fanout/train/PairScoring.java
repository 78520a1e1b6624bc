package io.fanout.train;

import io.fanout.graph.GraphStore;
import io.fanout.nn.GnnModel;
import io.fanout.store.Checksums;
import io.fanout.store.InvalidInputException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Scores of candidate vertex pairs by a trained link model, written as Parquet. */
public final class PairScoring {
  private PairScoring() {}

  /**
   * What {@link #score} scores and where it writes the scores.
   *
   * @param pairs the candidate pairs, by dense and original ids, in chunks
   * @param output the output directory (Parquet: src, dst, score)
   * @param overwrite replace an output of another request (else it is an error)
   * @param pick the checkpoint, {@code last} or {@code best}
   * @param verify check the store's files against their CRC32C first (once per process)
   */
  public record Request(
      Path graph,
      Path modelDir,
      CandidatePairChunks pairs,
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

  /** Scores chunks of candidate pairs; opened only when the pairs are to be scored. */
  public interface Scorer extends AutoCloseable {
    /** The scores of {@code pairs}, in their order. */
    float[] scores(CandidatePairs pairs);

    /** Releases what the scorer holds (a loaded model); nothing by default. */
    @Override
    default void close() {}
  }

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
      int n = store.csr().numVertices();
      String range = "but " + store.root() + " has vertices 0.." + (n - 1);
      return write(
          r,
          store.manifest().fingerprint(),
          (first, p) -> p.requireInside(n, n, "dense ids", range, first),
          () -> decoderScorer(r.modelDir(), ck, store));
    }
  }

  /** The link model's decoder over its full-neighbor embeddings, made once for every chunk. */
  private static Scorer decoderScorer(Path modelDir, Checkpoint ck, GraphStore store) {
    ModelLease lease = TrainedModels.load(modelDir, ck, store);
    try {
      GnnModel model = lease.model();
      float scale = LinkStep.logitScale(ck.meta());
      int dim = model.config().classes();
      float[] rows =
          LinkStep.scoredRows(
              model, scale, VertexOutputs.logits(model, store, null, 0, 0, -1), dim);
      return new Scorer() {
        @Override
        public float[] scores(CandidatePairs p) {
          float[] out = new float[p.size()];
          LinkStep.scoresOfRows(model, scale, rows, dim, p.src(), p.dst(), p.size(), out);
          return out;
        }

        @Override
        public void close() {
          lease.close();
        }
      };
    } catch (RuntimeException e) {
      lease.close();
      throw e;
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
   * Reads {@code r.pairs()} once, each chunk through {@code check} (which refuses pairs outside the
   * store); keeps {@code r.output()} when it holds the scores of the same request (store {@code
   * storeFingerprint}, the model file, the pairs), else reads them again, scores them chunk by
   * chunk with the scorer {@code open} gives and writes them in the pairs' order, committed
   * atomically; the one-type and typed link models share it.
   */
  public static Outcome write(
      Request r,
      String storeFingerprint,
      CandidatePairChunks.Chunk check,
      java.util.function.Supplier<Scorer> open) {
    MessageDigest pairs = sha256();
    r.pairs()
        .forEach(
            (first, p) -> {
              check.accept(first, p);
              p.digest(pairs);
            });
    String request =
        Checksums.sha256(
            "pairs|"
                + storeFingerprint
                + "|"
                + StoreFingerprints.ofFile(Checkpoint.inferenceFile(r.modelDir(), r.pick()))
                + "|"
                + HexFormat.of().formatHex(pairs.digest()));
    long kept = IdKeyedParquet.rowsToKeep(r.output(), request, r.overwrite(), "pair scores");
    if (kept >= 0) {
      return new Outcome(kept, true);
    }
    try (Scorer scorer = open.get()) {
      return new Outcome(PairScoreWriter.write(r.pairs(), scorer, r.output(), request), false);
    }
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK lacks SHA-256", e);
    }
  }
}
