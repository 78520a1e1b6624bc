package io.fanout.jobs.train;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.spark.train.TrainOptionsDefs;
import io.fanout.store.StoreLayout;
import io.fanout.train.Defaults;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** {@code bin/fanout quickstart}: prepare, sample, train and evaluate the bundled cora. */
public final class QuickstartCommand implements Command {
  static final OptionDef<String> WORK_DIR =
      OptionDef.string("work-dir", "work-dirs/quickstart", "where the store, shards and model go");
  static final OptionDef<String> DATASET =
      OptionDef.string(
          "dataset", "", "dataset directory (vertices.parquet, edges.parquet); default data/cora");
  static final OptionDef<Integer> EPOCHS =
      OptionDef.integer("epochs", Defaults.EPOCHS, "training epochs");
  static final OptionDef<Long> SEED = OptionDef.longValue("seed", 0, "random seed");
  static final OptionDef<String> TASK =
      OptionDef.choice(
          "task",
          "node",
          "node: node classification, prints test accuracy; link: link prediction on held-out"
              + " edges, prints test AUC",
          "node",
          "link");
  static final OptionDef<String> FEATURE_ENCODING =
      OptionDef.choice(
          "feature-encoding",
          "f32",
          "train on the prepared store re-encoded by quantize",
          StoreLayout.encodingNames());

  @Override
  public String name() {
    return "quickstart";
  }

  @Override
  public String summary() {
    return "prepare -> sample -> train -> evaluate on the bundled cora; prints test accuracy"
        + " (--task link: test AUC)";
  }

  @Override
  public List<OptionDef<?>> options() {
    return List.of(
        WORK_DIR,
        DATASET,
        EPOCHS,
        SEED,
        TASK,
        FEATURE_ENCODING,
        TrainOptionsDefs.REUSE_HOT,
        TrainOptionsDefs.STALENESS,
        TrainOptionsDefs.HOT_BY,
        TrainOptionsDefs.REUSE_REFRESH,
        TrainOptionsDefs.REUSE_BACKWARD,
        TrainOptionsDefs.REUSE_ROWS);
  }

  @Override
  public int run(CommandContext ctx) {
    FanoutConf c = ctx.conf();
    String ds = c.get(DATASET);
    Path dataset = ds.isBlank() ? EndToEnd.bundledDataset("cora") : Path.of(ds);
    ctx.spark(); // one session for prepare and sample
    long t0 = System.nanoTime();
    EndToEnd.Settings settings =
        EndToEnd.Settings.defaults()
            .withSeed(c.get(SEED))
            .withTrainEpochs(c.get(EPOCHS))
            .withFeatureEncoding(c.get(FEATURE_ENCODING))
            .withReuse(TrainOptionsDefs.reuse(c));
    if (c.get(TASK).equals("link")) {
      if (settings.reuse().enabled()) {
        throw new io.fanout.conf.FanoutConfigException(
            "option 'reuse-hot' of quickstart applies to --task node only; drop it for --task link");
      }
      LinkEndToEnd.Result lr =
          LinkEndToEnd.run(ctx.spark(), dataset, Path.of(c.get(WORK_DIR)), settings, ctx.err());
      io.fanout.train.LinkMetrics test = lr.metrics().get("test");
      io.fanout.train.LinkMetrics val = lr.metrics().get("val");
      ctx.out()
          .printf(
              Locale.ROOT,
              "{\"dataset\":\"%s\",\"task\":\"link\",\"test_auc\":%.4f,\"test_ap\":%.4f,"
                  + "\"test_mrr\":%.4f,\"test_hits@50\":%.4f,\"val_auc\":%.4f,"
                  + "\"model_dir\":\"%s\",\"seconds\":%.1f}%n",
              dataset,
              test.auc(),
              test.ap(),
              test.mrr(),
              test.hits50(),
              val.auc(),
              lr.modelDir(),
              (System.nanoTime() - t0) / 1e9);
      ctx.err().printf(Locale.ROOT, "test AUC: %.4f%n", test.auc());
      return 0;
    }
    EndToEnd.Result r =
        EndToEnd.run(ctx.spark(), dataset, Path.of(c.get(WORK_DIR)), settings, ctx.err());
    double sec = (System.nanoTime() - t0) / 1e9;
    ctx.out()
        .printf(
            Locale.ROOT,
            "{\"dataset\":\"%s\",\"test_accuracy\":%.4f,\"val_accuracy\":%.4f,"
                + "\"test_accuracy_sampled\":%.4f,\"model_dir\":\"%s\",\"seconds\":%.1f}%n",
            dataset,
            r.full().get("test").value(),
            r.full().get("val").value(),
            r.sampled().get("test").value(),
            r.modelDir(),
            sec);
    ctx.err().printf(Locale.ROOT, "test accuracy: %.4f%n", r.full().get("test").value());
    return 0;
  }
}
