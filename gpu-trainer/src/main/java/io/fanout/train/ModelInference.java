package io.fanout.train;

import io.fanout.graph.GraphStore;
import io.fanout.nn.GnnModel;
import io.fanout.store.Checksums;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.CpuBackend;
import java.nio.file.Path;

/**
 * Inference of a trained model over every vertex of a store: predictions and/or embeddings, written
 * as Parquet keyed by the original ids.
 */
public final class ModelInference {
  private ModelInference() {}

  /**
   * What {@link #infer(Request)} computes and where it writes it.
   *
   * @param predictions output directory of the predictions, or null for none
   * @param embeddings output directory of the embeddings (the last hidden layer), or null for none
   * @param fanouts null for full-neighbor inference, else sampled with these fanouts
   * @param overwrite replace outputs of another request (else they are an error)
   * @param pick the checkpoint, {@code last} or {@code best}
   * @param verify check the store's files against their CRC32C first (once per process, see {@link
   *     GraphStore#verifyChecksumsOnce})
   * @param trainedOn null to score the store the model was trained on (the checkpoint's recorded
   *     store, checked); else inductive inference: the store the model was trained on, and {@code
   *     graph} another one that must agree with it on what the model reads (see {@link
   *     InductiveCheck}), for example one holding vertices added since training
   */
  public record Request(
      Path graph,
      Path modelDir,
      Path predictions,
      Path embeddings,
      int[] fanouts,
      int batchSize,
      long seed,
      boolean overwrite,
      CheckpointPick pick,
      boolean verify,
      Path trainedOn) {
    /** A request of the store the model was trained on. */
    public Request(
        Path graph,
        Path modelDir,
        Path predictions,
        Path embeddings,
        int[] fanouts,
        int batchSize,
        long seed,
        boolean overwrite,
        CheckpointPick pick,
        boolean verify) {
      this(
          graph,
          modelDir,
          predictions,
          embeddings,
          fanouts,
          batchSize,
          seed,
          overwrite,
          pick,
          verify,
          null);
    }

    /** A verified request for the {@link Checkpoint#DEFAULT_PICK default} checkpoint. */
    public Request(
        Path graph,
        Path modelDir,
        Path predictions,
        Path embeddings,
        int[] fanouts,
        int batchSize,
        long seed,
        boolean overwrite) {
      this(
          graph,
          modelDir,
          predictions,
          embeddings,
          fanouts,
          batchSize,
          seed,
          overwrite,
          Checkpoint.DEFAULT_PICK,
          true,
          null);
    }
  }

  /**
   * What {@link #infer(Request)} did.
   *
   * @param rows vertices per output (one row each)
   * @param embeddingDim width of the embeddings (0 when none were asked for)
   * @param predictionsSkipped the predictions of the same request were already complete
   * @param embeddingsSkipped the embeddings of the same request were already complete
   */
  public record Outcome(
      long rows,
      int classes,
      int embeddingDim,
      boolean predictionsSkipped,
      boolean embeddingsSkipped) {}

  /**
   * Writes predictions of every vertex to {@code output} (Parquet, keyed by original id); returns
   * the number of rows.
   *
   * <p>/** Writes the predictions and/or the embeddings (the last hidden layer's outputs, the
   * output layer's input; for a link model, the embeddings its pairs are scored on, see {@link
   * LinkStep#exportedEmbeddings}) of every vertex as Parquet keyed by the original ids, from one
   * inference pass. Each output is committed atomically on its own (predictions first). An output
   * that already holds the same request (same store, model file and inference settings) is kept and
   * not recomputed; one of another request is replaced only with {@code overwrite}. Everything is
   * checked before anything is written.
   *
   * @throws InvalidInputException on bad input, e.g. embeddings of a 1-layer node classifier (no
   *     hidden layer) or predictions of a link model (no classes)
   * @throws IllegalArgumentException when neither output is given, or both are the same directory
   */
  public static Outcome infer(Request r) {
    if (r.predictions() == null && r.embeddings() == null) {
      throw new IllegalArgumentException("infer needs a predictions or an embeddings output");
    }
    if (r.predictions() != null
        && r.embeddings() != null
        && r.predictions()
            .toAbsolutePath()
            .normalize()
            .equals(r.embeddings().toAbsolutePath().normalize())) {
      throw new IllegalArgumentException(
          "predictions and embeddings both go to " + r.predictions() + "; give two directories");
    }
    Checkpoint ck = Checkpoint.readForInference(r.modelDir(), r.pick());
    boolean link = TrainedModels.isLink(ck);
    if (link && r.predictions() != null) {
      throw new InvalidInputException(
          "the model in "
              + r.modelDir()
              + " is a link-prediction model and predicts no classes; score candidate pairs with"
              + " infer --task link --pairs TABLE --output DIR, or export its embeddings with"
              + " --embeddings DIR");
    }
    try (GraphStore store = GraphStore.open(r.graph(), r.verify());
        ModelLease lease = TrainedModels.load(r.modelDir(), ck, store, r.trainedOn())) {
      GnnModel model = lease.model();
      int layers = model.numLayers();
      if (r.embeddings() != null && layers < 2 && !link) {
        throw new InvalidInputException(
            "the model in "
                + r.modelDir()
                + " has "
                + layers
                + " layer, hence no hidden layer to take embeddings from; embeddings need a model"
                + " of 2 or more layers (shards sampled with 2 or more fanouts)");
      }
      int classes = model.config().classes();
      int dim = link ? classes : layers >= 2 ? model.layerOutDim(layers - 2) : 0;
      String settings =
          r.fanouts() == null
              ? "full"
              : "sampled "
                  + java.util.Arrays.toString(r.fanouts())
                  + " batch "
                  + r.batchSize()
                  + " seed "
                  + r.seed();
      String request =
          store.manifest().fingerprint()
              + "|"
              + StoreFingerprints.ofFile(Checkpoint.inferenceFile(r.modelDir(), r.pick()))
              + "|"
              + settings;
      String predRequest = Checksums.sha256("predictions|" + request);
      String embRequest = Checksums.sha256((link ? "link-embeddings|" : "embeddings|") + request);
      long predKept =
          r.predictions() == null
              ? -1
              : IdKeyedParquet.rowsToKeep(
                  r.predictions(), predRequest, r.overwrite(), "predictions");
      long embKept =
          r.embeddings() == null
              ? -1
              : IdKeyedParquet.rowsToKeep(r.embeddings(), embRequest, r.overwrite(), "embeddings");
      boolean writePred = r.predictions() != null && predKept < 0;
      boolean writeEmb = r.embeddings() != null && embKept < 0;
      long rows = Math.max(predKept, embKept);
      if (writePred || writeEmb) {
        FullGraphInference.Outputs o =
            VertexOutputs.outputs(
                model, store, r.fanouts(), r.batchSize(), r.seed(), -1, writeEmb && !link);
        float[] lg = o.logits();
        if (writePred) {
          int n = lg.length / classes;
          float[] probs = new float[lg.length];
          CpuBackend.softmax(lg, n, classes, probs);
          rows =
              PredictionWriter.write(
                  store.dataRoot(), probs, classes, r.predictions(), predRequest);
        }
        if (writeEmb) {
          float[] emb = link ? LinkStep.exportedEmbeddings(model, ck, lg, dim) : o.lastHidden();
          float[] learned = learnedRows(model, emb.length / Math.max(1, dim));
          int learnedDim = model.config().inDim();
          rows =
              EmbeddingWriter.write(
                  store.dataRoot(), emb, dim, learned, learnedDim, r.embeddings(), embRequest);
        }
      }
      return new Outcome(
          rows,
          classes,
          r.embeddings() == null ? 0 : dim,
          r.predictions() != null && !writePred,
          r.embeddings() != null && !writeEmb);
    }
  }

  /** Every row of the model's learned input table ({@code vertices x inDim}), or null for none. */
  private static float[] learnedRows(GnnModel model, int vertices) {
    if (model.embeddings() == null) {
      return null;
    }
    int[] ids = new int[vertices];
    java.util.Arrays.setAll(ids, i -> i);
    float[] x = new float[Math.multiplyExact(vertices, model.config().inDim())];
    model.embeddings().gather(ids, 0, vertices, x, 0);
    return x;
  }
}
