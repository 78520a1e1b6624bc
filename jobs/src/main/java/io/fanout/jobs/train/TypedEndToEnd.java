package io.fanout.jobs.train;

import io.fanout.spark.EvaluateResult;
import io.fanout.spark.Fanout;
import io.fanout.spark.prepare.DatasetGraphSpec;
import io.fanout.store.DisjointPaths;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;

/**
 * prepare -> sample -> train -> evaluate on a typed dataset folder (one that describes its vertex
 * types and relations in a {@code schema.json}, as {@code hgb_acm} does), through the public API.
 * Node classification of the dataset's target type with full neighborhoods; the model is chosen on
 * the validation split ({@code --checkpoint best}).
 */
public final class TypedEndToEnd {
  private TypedEndToEnd() {}

  /**
   * Settings of one run; {@link #defaults()} are those of {@code quickstart} on a typed dataset.
   *
   * @param fanouts per-relation fanouts in {@code sample}'s syntax
   */
  public record Settings(
      String model,
      String fanouts,
      int batchSize,
      int epochs,
      int hidden,
      double dropout,
      double lr,
      double weightDecay,
      long seed) {
    public static Settings defaults() {
      return new Settings("rgcn", "*=-1,-1", 256, 50, 64, 0.5, 0.01, 5e-4, 0);
    }

    public Settings withSeed(long s) {
      return new Settings(model, fanouts, batchSize, epochs, hidden, dropout, lr, weightDecay, s);
    }

    public Settings withEpochs(int e) {
      return new Settings(model, fanouts, batchSize, e, hidden, dropout, lr, weightDecay, seed);
    }

    public Settings withModel(String m) {
      return new Settings(m, fanouts, batchSize, epochs, hidden, dropout, lr, weightDecay, seed);
    }
  }

  /** The evaluation of the chosen model (accuracy, Micro- and Macro-F1 per split). */
  public record Result(EvaluateResult metrics, Path store, Path modelDir) {}

  /** Whether {@code dataset} is a typed dataset folder this pipeline runs on. */
  public static boolean handles(Path dataset) {
    return DatasetGraphSpec.isTyped(dataset);
  }

  /** Runs the pipeline on {@code dataset} into {@code work} (store/, shards/, model/). */
  public static Result run(
      SparkSession spark, Path dataset, Path work, Settings s, PrintStream progress) {
    Path store = work.resolve("store");
    Path shards = work.resolve("shards-s" + s.seed());
    Path model = work.resolve("model-" + s.model() + "-s" + s.seed());
    new DisjointPaths()
        .input("--dataset", dataset)
        .output("--work-dir", store)
        .output("--work-dir", shards)
        .output("--work-dir", model)
        .check();
    Fanout fanout = Fanout.get(spark);
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());

    progress.println("[1/4] prepare " + dataset + " -> " + store);
    fanout.prepare().option("graph-spec", dataset.toString()).output(store.toString()).execute();

    progress.println("[2/4] sample " + s.fanouts() + " -> " + shards);
    fanout
        .sample(store.toString())
        .output(shards.toString())
        .split("train")
        .fanouts(s.fanouts())
        .batchSize(s.batchSize())
        .epochs(1)
        .seed(s.seed())
        .progress(quiet)
        .execute();

    progress.println("[3/4] train " + s.model() + " -> " + model);
    fanout
        .train(store.toString(), shards.toString())
        .modelDir(model.toString())
        .model(s.model())
        .hidden(s.hidden())
        .epochs(s.epochs())
        .seed(s.seed())
        .resume(true)
        .option("dropout", Double.toString(s.dropout()))
        .option("lr", Double.toString(s.lr()))
        .option("weight-decay", Double.toString(s.weightDecay()))
        .option("log-every", "0")
        .progress(progress)
        .execute();

    progress.println("[4/4] evaluate");
    EvaluateResult metrics =
        fanout.evaluate(store.toString(), model.toString()).option("checkpoint", "best").execute();
    return new Result(metrics, store, model);
  }
}
