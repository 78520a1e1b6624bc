package io.fanout.spark;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.IfExists;
import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.Task;
import io.fanout.conf.options.EvaluateOptions;
import io.fanout.conf.options.InferOptions;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.spark.internal.LocalTablePaths;
import io.fanout.spark.internal.StageWatch;
import io.fanout.spark.train.CandidatePairsReader;
import io.fanout.store.DisjointPaths;
import io.fanout.store.OutputLock;
import io.fanout.store.OutputPaths;
import io.fanout.train.CandidatePairChunks;
import io.fanout.train.ModelInference;
import io.fanout.train.PairScoring;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * A configured {@code infer}: predictions ({@link #output}) and/or node embeddings ({@link
 * #embeddings}) of every vertex, as Parquet keyed by the original vertex ids, from one inference
 * pass, or ({@code task link}) the scores of candidate pairs ({@link #pairs}); options as {@link
 * InferOptions}. At least one output is required: the result's DataFrames are read back from the
 * Parquet written, so the paths must be readable by the session's executors. Inference runs on the
 * driver, in this JVM, while a one-task Spark job labelled {@code fanout infer: ...} stands for it
 * in the caller's job group (else {@code fanout-infer}) and with the session's tags: cancelling
 * either stops the inference at its next batch, before anything is published, and {@link
 * #execute()} throws {@link FanoutCancelledException}.
 *
 * <p>Each output is committed atomically (staging directory renamed into place, {@code _SUCCESS}
 * inside). A rerun of the same request (same store, model file and inference settings) keeps a
 * complete output without recomputing it; an output of another request is replaced only with {@code
 * overwrite}.
 */
public final class InferAction extends FanoutAction<InferAction, InferResult> {
  InferAction(SparkSession spark, String store, String modelDir) {
    super(spark, "infer", InferOptions.ALL);
    option(TrainCommandOptions.GRAPH.name(), store);
    option(TrainCommandOptions.MODEL_DIR.name(), modelDir);
  }

  /** Directory of the predictions ({@code output}): id, dense_id, prediction, probabilities. */
  public InferAction output(String path) {
    return option(InferOptions.OUTPUT.name(), path);
  }

  /**
   * Directory of the node embeddings ({@code embeddings}): id, dense_id, embedding (the last hidden
   * layer's output, after its activation; the output layer's input). Needs a model of 2 or more
   * layers. A link model's are the embeddings its pairs are scored on (see {@code
   * docs/inference.md}).
   */
  public InferAction embeddings(String path) {
    return option(InferOptions.EMBEDDINGS.name(), path);
  }

  /**
   * Inductive inference ({@code trained-on}): the model was trained on {@code store}, and the store
   * this action scores is another one, for example one prepared with vertices or edges added since
   * training. The two must agree on the feature width and encoding, the classes and the graph
   * options; a disagreement is refused, naming it. Node predictions and embeddings only.
   */
  public InferAction trainedOn(String store) {
    return option(InferOptions.TRAINED_ON.name(), store);
  }

  /**
   * Scores candidate pairs with a link model ({@code task link}, {@code pairs}): the table (by
   * original vertex ids, columns {@code src-column}/{@code dst-column}) is scored into {@link
   * #output} as id-keyed Parquet {@code (src, dst, score)}.
   */
  public InferAction pairs(String table) {
    option(InferOptions.TASK.name(), "link");
    return option(InferOptions.PAIRS.name(), table);
  }

  /**
   * Runs inference and writes the requested outputs, or keeps those already complete; with {@code
   * mode("ignore")}, returns the earlier result when every requested output is complete, whatever
   * request wrote it.
   *
   * @throws FanoutConfigException when neither output is given
   * @throws io.fanout.store.InvalidInputException on a missing or foreign model, embeddings of a
   *     1-layer model, an output holding another request without {@code overwrite}, or an output
   *     equal to, inside or holding an input (store, model dir, pairs) or the other output
   * @throws FanoutCancelledException when its job group or a session tag was cancelled; nothing is
   *     published then
   */
  @Override
  public InferResult execute() {
    FanoutConf c = conf();
    IfExists m = ifExists(c, InferOptions.OVERWRITE, IfExists.OVERWRITE, false);
    if (m == IfExists.IGNORE) {
      String output = c.get(InferOptions.OUTPUT);
      String embeddings = c.get(InferOptions.EMBEDDINGS);
      InferResult kept =
          c.get(InferOptions.TASK) == Task.LINK
              ? (output.isBlank() ? null : KeptInference.pairs(spark(), output))
              : output.isBlank() && embeddings.isBlank()
                  ? null
                  : KeptInference.nodes(
                      spark(),
                      output.isBlank() ? null : output,
                      embeddings.isBlank() ? null : embeddings);
      if (kept != null) {
        return kept;
      }
    }
    if (m == IfExists.OVERWRITE && !c.get(InferOptions.OVERWRITE)) {
      option(InferOptions.OVERWRITE.name(), "true");
      c = conf();
    }
    for (OptionDef<String> o : java.util.List.of(InferOptions.OUTPUT, InferOptions.EMBEDDINGS)) {
      beforeWriting(m, c.get(o), "Parquet output", dir -> null);
    }
    try {
      return run(c);
    } catch (RuntimeException e) {
      throw inCallerTerms(e);
    }
  }

  private InferResult run(FanoutConf c) {
    EvaluateOptions.refuseIgnored(c);
    String output = c.get(InferOptions.OUTPUT);
    String embeddings = c.get(InferOptions.EMBEDDINGS);
    String pairs = c.get(InferOptions.PAIRS);
    boolean link = c.get(InferOptions.TASK) == Task.LINK;
    if (link && !c.get(InferOptions.TRAINED_ON).isBlank()) {
      throw new FanoutConfigException(
          "--trained-on (inductive inference) scores vertices of node models; it does not take"
              + " --task link");
    }
    if (!pairs.isBlank() && !link) {
      throw new FanoutConfigException(
          say(
              "pairs(...) scores candidate pairs of a link model; use pairs(table), which sets"
                  + " option task=link",
              "--pairs scores candidate pairs of a link model; add --task link"));
    }
    if (link) {
      if (pairs.isBlank() || output.isBlank()) {
        throw new FanoutConfigException(
            say(
                "infer of a link model scores the candidate pairs of pairs(table) into output(dir);"
                    + " give both (embeddings: embeddings(dir) without pairs)",
                "infer --task link scores the candidate pairs of --pairs TABLE into --output DIR;"
                    + " give both (embeddings: infer --embeddings without --task link)"));
      }
      if (!embeddings.isBlank()) {
        throw new FanoutConfigException(
            "infer --task link writes pair scores only; export the embeddings with a separate"
                + " infer --embeddings");
      }
      Path out = OutputPaths.check(Path.of(output), "--output");
      Path graph = Path.of(c.get(TrainCommandOptions.GRAPH));
      new DisjointPaths()
          .input("--graph", graph)
          .input("--model-dir", Path.of(c.get(TrainCommandOptions.MODEL_DIR)))
          .input("--pairs", LocalTablePaths.of(spark(), pairs))
          .output("--output", out)
          .check();
      boolean typed = io.fanout.spark.train.TypedTrainJob.isTyped(spark(), graph.toString());
      PairScoring.Outcome po;
      try (CandidatePairChunks cp =
              typed
                  ? io.fanout.spark.train.TypedInference.readPairs(spark(), c, graph, pairs)
                  : CandidatePairsReader.read(
                      spark(),
                      graph,
                      pairs,
                      c.get(InferOptions.PAIRS_FORMAT).id(),
                      c.get(InferOptions.SRC_COLUMN),
                      c.get(InferOptions.DST_COLUMN));
          OutputLock writer = OutputLock.acquire(out, "pair scores")) {
        po =
            watched(
                () -> "nothing was published; " + output + " is as it was",
                () -> scorePairs(c, graph, cp, out, typed));
      }
      return InferResult.ofPairs(spark(), output, po);
    }
    return inferNodes(c, output, embeddings);
  }

  /**
   * Runs {@code work} on the driver with a watch job standing for it ({@link StageWatch}), so that
   * cancelling the caller's job group or a session tag stops it before it publishes.
   */
  private <T> T watched(
      java.util.function.Supplier<String> kept, java.util.function.Supplier<T> work) {
    return cancellable(
        kept,
        () -> {
          try (StageWatch watch = StageWatch.start(spark(), stage(), "inference on the driver")) {
            return watch.run(work);
          }
        });
  }

  private static PairScoring.Outcome scorePairs(
      FanoutConf c, Path graph, CandidatePairChunks cp, Path out, boolean typed) {
    PairScoring.Request r =
        new PairScoring.Request(
            graph,
            Path.of(c.get(TrainCommandOptions.MODEL_DIR)),
            cp,
            out,
            c.get(InferOptions.OVERWRITE),
            c.get(EvaluateOptions.CHECKPOINT),
            c.get(SharedOptions.VERIFY));
    return typed ? io.fanout.train.typed.TypedPairScoring.score(r) : PairScoring.score(r);
  }

  private InferResult inferNodes(FanoutConf c, String output, String embeddings) {
    if (output.isBlank() && embeddings.isBlank()) {
      throw new FanoutConfigException(
          say(
              "infer has nothing to write: call output(dir) (predictions) and/or embeddings(dir)"
                  + " (node embeddings)",
              "infer has nothing to write: give --output (predictions) and/or --embeddings (node"
                  + " embeddings)"));
    }
    Path pred = output.isBlank() ? null : OutputPaths.check(Path.of(output), "--output");
    Path emb = embeddings.isBlank() ? null : OutputPaths.check(Path.of(embeddings), "--embeddings");
    new DisjointPaths()
        .input("--graph", Path.of(c.get(TrainCommandOptions.GRAPH)))
        .input("--model-dir", Path.of(c.get(TrainCommandOptions.MODEL_DIR)))
        .input("--trained-on", trainedOn(c))
        .output("--output", pred)
        .output("--embeddings", emb)
        .check();
    ModelInference.Outcome o;
    try (OutputLock predictions = OutputLock.acquire(pred, "predictions");
        OutputLock vectors = OutputLock.acquire(emb, "embeddings")) {
      o =
          watched(
              () ->
                  "nothing was published; "
                      + String.join(
                          " and ",
                          java.util.stream.Stream.of(output, embeddings)
                              .filter(p -> !p.isBlank())
                              .toList())
                      + " as they were",
              () ->
                  io.fanout.spark.train.TypedTrainJob.isTyped(
                          spark(), c.get(TrainCommandOptions.GRAPH))
                      ? io.fanout.spark.train.TypedInference.run(spark(), c, pred, emb)
                      : predict(c, pred, emb));
    }
    return new InferResult(
        spark(), pred == null ? null : output, emb == null ? null : embeddings, o);
  }

  private static ModelInference.Outcome predict(FanoutConf c, Path pred, Path emb) {
    return ModelInference.infer(
        new ModelInference.Request(
            Path.of(c.get(TrainCommandOptions.GRAPH)),
            Path.of(c.get(TrainCommandOptions.MODEL_DIR)),
            pred,
            emb,
            EvaluateOptions.fanouts(c),
            c.get(EvaluateOptions.BATCH_SIZE),
            c.get(EvaluateOptions.SEED),
            c.get(InferOptions.OVERWRITE),
            c.get(EvaluateOptions.CHECKPOINT),
            c.get(SharedOptions.VERIFY),
            trainedOn(c)));
  }

  /** The store of {@code trained-on}, or null when not given. */
  private static Path trainedOn(FanoutConf c) {
    String s = c.get(InferOptions.TRAINED_ON);
    return s.isBlank() ? null : Path.of(s);
  }
}
