package io.fanout.jobs.train;

import io.fanout.cli.FanoutCli;
import io.fanout.spark.Fanout;
import io.fanout.store.InvalidInputException;
import io.fanout.train.Accuracy;
import io.fanout.train.Defaults;
import io.fanout.train.ModelRuns;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * prepare -> sample -> train -> evaluate on a dataset directory in the canonical layout ({@code
 * vertices.parquet} with id, label, split, features; {@code edges.parquet} with src, dst), through
 * the same commands as {@code bin/fanout}. Reruns skip complete steps (prepare and sample skip
 * identical requests, training resumes its checkpoint). Uses the active SparkSession when there is
 * one; evaluation goes through {@link Fanout#evaluate} and needs one (quickstart starts it).
 */
public final class EndToEnd {
  private EndToEnd() {}

  /** Settings of one run; {@link #defaults()} are those of {@code bin/fanout quickstart}. */
  public record Settings(
      int[] fanouts,
      int batchSize,
      int sampleEpochs,
      int trainEpochs,
      long seed,
      String model,
      boolean validate) {
    public static Settings defaults() {
      return new Settings(
          Defaults.FANOUTS, Defaults.BATCH_SIZE, 10, Defaults.EPOCHS, 0, Defaults.MODEL, true);
    }

    public Settings withSeed(long s) {
      return new Settings(fanouts, batchSize, sampleEpochs, trainEpochs, s, model, validate);
    }

    public Settings withTrainEpochs(int e) {
      return new Settings(fanouts, batchSize, sampleEpochs, e, seed, model, validate);
    }
  }

  /** Accuracy per split with full-neighbor and with sampled (20 per layer) inference. */
  public record Result(
      Map<String, Accuracy> full, Map<String, Accuracy> sampled, Path store, Path modelDir) {}

  /** Runs the pipeline on {@code dataset} into {@code work} (store/, shards/, model/). */
  public static Result run(Path dataset, Path work, Settings s, PrintStream progress) {
    for (String f : new String[] {"vertices.parquet", "edges.parquet"}) {
      if (!Files.exists(dataset.resolve(f))) {
        throw new InvalidInputException(
            "dataset "
                + dataset
                + " has no "
                + f
                + "; expected vertices.parquet and edges.parquet");
      }
    }
    Path store = work.resolve("store");
    Path shards = work.resolve("shards-s" + s.seed());
    Path val = work.resolve("val-shards");
    Path model = work.resolve("model-" + s.model() + "-s" + s.seed());
    String fanouts = join(s.fanouts());
    progress.println("[1/4] prepare " + dataset + " -> " + store);
    cli(
        progress,
        "prepare",
        "--vertices",
        dataset.resolve("vertices.parquet").toString(),
        "--edges",
        dataset.resolve("edges.parquet").toString(),
        "--output",
        store.toString(),
        "--undirected",
        "--dedupe",
        "--self-loops",
        "drop");
    progress.println("[2/4] sample " + fanouts + " -> " + shards);
    cli(
        progress,
        "sample",
        "--graph",
        store.toString(),
        "--output",
        shards.toString(),
        "--split",
        "train",
        "--fanouts",
        fanouts,
        "--batch-size",
        Integer.toString(s.batchSize()),
        "--epochs",
        Integer.toString(s.sampleEpochs()),
        "--seed",
        Long.toString(s.seed()));
    if (s.validate()) {
      int[] f20 = new int[s.fanouts().length];
      Arrays.fill(f20, Defaults.INFERENCE_FANOUT);
      cli(
          progress,
          "sample",
          "--graph",
          store.toString(),
          "--output",
          val.toString(),
          "--split",
          "val",
          "--fanouts",
          join(f20),
          "--batch-size",
          "1024",
          "--epochs",
          "1",
          "--seed",
          "7");
    }
    progress.println("[3/4] train " + s.model() + " -> " + model);
    ModelRuns.TrainSpec d = ModelRuns.TrainSpec.defaults(store, shards, model);
    ModelRuns.TrainSpec spec =
        new ModelRuns.TrainSpec(
            store,
            shards,
            model,
            s.model(),
            d.hidden(),
            0,
            d.dropout(),
            d.activation(),
            d.featureNorm(),
            d.lr(),
            d.weightDecay(),
            d.schedule(),
            s.trainEpochs(),
            s.seed(),
            true,
            s.validate() ? val : null,
            d.loaderThreads(),
            d.prefetch(),
            0);
    ModelRuns.train(spec, progress);
    progress.println("[4/4] evaluate");
    Fanout fanout = Fanout.get(SparkSession.active());
    Map<String, Accuracy> full =
        fanout.evaluate(store.toString(), model.toString()).execute().perSplit();
    int[] f20 = new int[s.fanouts().length];
    Arrays.fill(f20, Defaults.INFERENCE_FANOUT);
    Map<String, Accuracy> sampled =
        fanout
            .evaluate(store.toString(), model.toString())
            .option("mode", "sampled")
            .option("fanouts", join(f20))
            .execute()
            .perSplit();
    return new Result(full, sampled, store, model);
  }

  private static void cli(PrintStream progress, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        FanoutCli.run(
            List.of(args),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String e = err.toString(StandardCharsets.UTF_8);
    if (code != 0) {
      throw new IllegalStateException(
          "bin/fanout " + args[0] + " failed (exit " + code + "): " + e.trim());
    }
  }

  private static String join(int[] a) {
    List<String> s = new ArrayList<>();
    for (int v : a) {
      s.add(Integer.toString(v));
    }
    return String.join(",", s);
  }

  /**
   * The repository's bundled {@code data/<name>}: under {@code -Dfanout.repo}, {@code
   * $FANOUT_HOME}, the repository holding the running jar or classes, or the working directory or
   * one of its parents.
   */
  public static Path bundledDataset(String name) {
    List<Path> roots = new ArrayList<>();
    String prop = System.getProperty("fanout.repo");
    if (prop != null) {
      roots.add(Path.of(prop));
    }
    String env = System.getenv("FANOUT_HOME");
    if (env != null) {
      roots.add(Path.of(env));
    }
    try {
      Path code =
          Path.of(EndToEnd.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      for (Path p = code; p != null; p = p.getParent()) {
        roots.add(p);
      }
    } catch (URISyntaxException | RuntimeException e) {
      // No code source: fall back to the working directory.
    }
    for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
      roots.add(p);
    }
    for (Path r : roots) {
      Path d = r.resolve("data").resolve(name);
      if (Files.isRegularFile(d.resolve("vertices.parquet"))) {
        return d;
      }
    }
    throw new InvalidInputException(
        "cannot find data/"
            + name
            + "/vertices.parquet under "
            + roots
            + "; run from the repository or set FANOUT_HOME");
  }
}
