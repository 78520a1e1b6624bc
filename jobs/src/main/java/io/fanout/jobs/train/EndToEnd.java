package io.fanout.jobs.train;

import io.fanout.nn.ModelKind;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.spark.TrainAction;
import io.fanout.store.DisjointPaths;
import io.fanout.store.InvalidInputException;
import io.fanout.train.Accuracy;
import io.fanout.train.Defaults;
import io.fanout.train.HotBy;
import io.fanout.train.HotReuse;
import io.fanout.train.ReuseRefresh;
import io.fanout.train.ReuseRows;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
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
 * the public API, exactly as a notebook would run it. Reruns skip complete steps (prepare and
 * sample skip identical requests, training resumes its checkpoint).
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
      ModelKind model,
      boolean validate,
      String featureEncoding,
      HotReuse reuse) {
    public static Settings defaults() {
      return new Settings(
          Defaults.FANOUTS,
          Defaults.BATCH_SIZE,
          10,
          Defaults.EPOCHS,
          0,
          Defaults.MODEL,
          true,
          "f32",
          HotReuse.OFF);
    }

    public Settings withSeed(long s) {
      return new Settings(
          fanouts,
          batchSize,
          sampleEpochs,
          trainEpochs,
          s,
          model,
          validate,
          featureEncoding,
          reuse);
    }

    public Settings withTrainEpochs(int e) {
      return new Settings(
          fanouts, batchSize, sampleEpochs, e, seed, model, validate, featureEncoding, reuse);
    }

    /**
     * Trains on the store re-encoded by {@code quantize} ({@code f32} = the prepared store itself).
     */
    public Settings withReuse(HotReuse r) {
      return new Settings(
          fanouts, batchSize, sampleEpochs, trainEpochs, seed, model, validate, featureEncoding, r);
    }

    public Settings withFeatureEncoding(String enc) {
      return new Settings(
          fanouts, batchSize, sampleEpochs, trainEpochs, seed, model, validate, enc, reuse);
    }
  }

  /** Accuracy per split with full-neighbor and with sampled (20 per layer) inference. */
  public record Result(
      Map<String, Accuracy> full, Map<String, Accuracy> sampled, Path store, Path modelDir) {}

  /**
   * Runs the pipeline on {@code dataset} into {@code work} (store/, shards/, model/) through the
   * public API ({@link Fanout}) on {@code spark}.
   */
  public static Result run(
      SparkSession spark, Path dataset, Path work, Settings s, PrintStream progress) {
    Path store = work.resolve("store");
    String enc = s.featureEncoding().equals("f32") ? "" : "-" + s.featureEncoding();
    Path shards = work.resolve("shards" + enc + "-s" + s.seed());
    Path val = work.resolve("val-shards" + enc);
    HotReuse r = s.reuse();
    String reuse =
        !r.enabled()
            ? ""
            : "-reuse"
                + r.fraction()
                + "-"
                + HotReuse.stalenessName(r.staleness())
                + (r.hotBy() == HotBy.FREQUENCY ? "" : "-" + r.hotBy().id())
                + (r.refresh() == ReuseRefresh.AUTO ? "" : "-" + r.refresh().id())
                + (r.deferredBackward() ? "-" + r.backward().id() : "")
                + (r.rows() == HotReuse.resolveRows(ReuseRows.AUTO, s.model(), r.backward())
                    ? ""
                    : "-" + r.rows().id());
    Path model = work.resolve("model-" + s.model().id() + enc + reuse + "-s" + s.seed());
    Path encoded = enc.isEmpty() ? null : work.resolve("store" + enc);
    refuseOverlap(dataset, store, encoded, shards, s.validate() ? val : null, model);
    int[] f20 = new int[s.fanouts().length];
    Arrays.fill(f20, Defaults.INFERENCE_FANOUT);
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    Fanout fanout = Fanout.get(spark);

    progress.println("[1/4] prepare " + dataset + " -> " + store);
    prepare(fanout, dataset).output(store.toString()).execute();
    if (encoded != null) {
      progress.println("[1/4] quantize " + store + " -> " + encoded);
      fanout
          .quantize(store.toString())
          .encoding(s.featureEncoding())
          .output(encoded.toString())
          .execute();
      store = encoded;
    }

    progress.println("[2/4] sample " + join(s.fanouts()) + " -> " + shards);
    fanout
        .sample(store.toString())
        .output(shards.toString())
        .split("train")
        .fanouts(s.fanouts())
        .batchSize(s.batchSize())
        .epochs(s.sampleEpochs())
        .seed(s.seed())
        .progress(quiet)
        .execute();
    if (s.validate()) {
      fanout
          .sample(store.toString())
          .output(val.toString())
          .split("val")
          .fanouts(f20)
          .batchSize(1024)
          .epochs(1)
          .seed(7)
          .progress(quiet)
          .execute();
    }

    progress.println("[3/4] train " + s.model().id() + " -> " + model);
    TrainAction train =
        fanout
            .train(store.toString(), shards.toString())
            .modelDir(model.toString())
            .model(s.model().id())
            .epochs(s.trainEpochs())
            .seed(s.seed())
            .resume(true)
            .option("log-every", "0")
            .progress(progress);
    if (s.validate()) {
      train.valShards(val.toString());
    }
    if (r.enabled()) {
      train.reuseHot(r.fraction(), r.staleness(), r.hotBy().id());
      train.reuseRefresh(r.refresh().id());
      train.reuseBackward(r.backward().id());
      train.reuseRows(r.rows().id());
    }
    train.execute();

    progress.println("[4/4] evaluate");
    Map<String, Accuracy> full =
        fanout.evaluate(store.toString(), model.toString()).execute().perSplit();
    Map<String, Accuracy> sampled =
        fanout
            .evaluate(store.toString(), model.toString())
            .option("neighbors", "sampled")
            .option("fanouts", join(f20))
            .execute()
            .perSplit();
    return new Result(full, sampled, store, model);
  }

  /**
   * Refuses, before the first step, a pipeline whose outputs overlap the dataset's tables or each
   * other (through links in the work dir); each step checks its own paths again.
   */
  static void refuseOverlap(Path dataset, Path... outputs) {
    DisjointPaths paths =
        new DisjointPaths()
            .input("--dataset", dataset.resolve("vertices.parquet"))
            .input("--dataset", dataset.resolve("edges.parquet"));
    for (Path out : outputs) {
      paths.output("--work-dir", out);
    }
    paths.check();
  }

  /**
   * {@code prepare} of a dataset directory ({@code vertices.parquet}, {@code edges.parquet}) as the
   * quickstarts run it: undirected, deduplicated, without self-loops.
   *
   * @throws InvalidInputException naming the missing file when the directory lacks one
   */
  public static PrepareAction prepare(Fanout fanout, Path dataset) {
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
    return fanout
        .prepare()
        .option("vertices", dataset.resolve("vertices.parquet").toString())
        .option("edges", dataset.resolve("edges.parquet").toString())
        .option("undirected", "true")
        .option("dedupe", "true")
        .option("self-loops", "drop");
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
