package io.fanout.jobs.train;

import io.fanout.spark.Fanout;
import io.fanout.train.LinkMetrics;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;

/**
 * The link-prediction pipeline of {@code bin/fanout quickstart --task link}, through the public
 * API: prepare with {@code --task link} (edges split 0.85/0.05/0.10 with one fixed negative per
 * held-out edge), sample the training edges with uniform negatives (one sampled epoch per training
 * epoch), train the encoder scoring pairs by the scaled cosine ({@code 5 cos(h_u, h_v)}), and
 * evaluate on the held-out edges. Reruns skip complete steps, as {@link EndToEnd}.
 */
public final class LinkEndToEnd {
  private LinkEndToEnd() {}

  /** Metrics on the store's val and test edges. */
  public record Result(Map<String, LinkMetrics> metrics, Path store, Path modelDir) {}

  /**
   * Runs the pipeline on {@code dataset} into {@code work} (store-link/, link-shards-sS/,
   * link-model-MODEL-sS/). The edge split's seed is fixed (0): every seed is scored on the same
   * held-out edges; {@code s.seed()} seeds sampling and training.
   */
  public static Result run(
      org.apache.spark.sql.SparkSession spark,
      Path dataset,
      Path work,
      EndToEnd.Settings s,
      PrintStream progress) {
    Path store = work.resolve("store-link");
    Path shards = work.resolve("link-shards-s" + s.seed());
    Path model = work.resolve("link-model-" + s.model().id() + "-s" + s.seed());
    EndToEnd.refuseOverlap(dataset, store, shards, model);
    PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
    Fanout fanout = Fanout.get(spark);

    progress.println("[1/4] prepare --task link " + dataset + " -> " + store);
    EndToEnd.prepare(fanout, dataset).option("task", "link").output(store.toString()).execute();

    progress.println("[2/4] sample --task link -> " + shards);
    fanout
        .sample(store.toString())
        .output(shards.toString())
        .option("task", "link")
        .fanouts(s.fanouts())
        .batchSize(s.batchSize())
        // one sampled epoch per training epoch: every epoch sees fresh negatives (with 10 epochs
        // cycled, cora's test AUC drops from 0.912 to 0.908)
        .epochs(s.trainEpochs())
        .seed(s.seed())
        .progress(quiet)
        .execute();

    progress.println("[3/4] train " + s.model().id() + " (dot decoder) -> " + model);
    fanout
        .train(store.toString(), shards.toString())
        .modelDir(model.toString())
        .model(s.model().id())
        .epochs(s.trainEpochs())
        .seed(s.seed())
        .resume(true)
        .option("log-every", "0")
        .progress(progress)
        .execute();

    progress.println("[4/4] evaluate on the held-out edges");
    var r = fanout.evaluate(store.toString(), model.toString()).execute();
    return new Result(
        Map.of("val", r.linkMetrics("val"), "test", r.linkMetrics("test")), store, model);
  }
}
