package io.fanout.jobs.train;

import static io.fanout.conf.options.QuickstartOptions.*;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.conf.Task;
import io.fanout.conf.options.QuickstartOptions;
import io.fanout.spark.train.TrainOptionsDefs;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** {@code bin/fanout quickstart}: prepare, sample, train and evaluate the bundled cora. */
public final class QuickstartCommand implements Command {
  @Override
  public String name() {
    return "quickstart";
  }

  @Override
  public String summary() {
    return "prepare -> sample -> train -> evaluate on the bundled cora; prints test accuracy"
        + " (--task link: test AUC); on a typed dataset (--dataset with a schema.json, such as"
        + " hgb_acm) prints the target type's test Micro- and Macro-F1";
  }

  @Override
  public List<OptionDef<?>> options() {
    return QuickstartOptions.ALL;
  }

  @Override
  public int run(CommandContext ctx) {
    FanoutConf c = ctx.conf();
    String ds = c.get(DATASET);
    Path dataset = ds.isBlank() ? EndToEnd.bundledDataset("cora") : Path.of(ds);
    ctx.spark(); // one session for prepare and sample
    long t0 = System.nanoTime();
    if (TypedEndToEnd.handles(dataset)) {
      return runTyped(ctx, dataset, t0);
    }
    EndToEnd.Settings settings =
        EndToEnd.Settings.defaults()
            .withSeed(c.get(SEED))
            .withTrainEpochs(c.get(EPOCHS))
            .withFeatureEncoding(c.get(FEATURE_ENCODING).id())
            .withReuse(TrainOptionsDefs.reuse(c));
    if (c.get(TASK) == Task.LINK) {
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

  /** The typed pipeline ({@link TypedEndToEnd}): prints Micro- and Macro-F1 of the target type. */
  private static int runTyped(CommandContext ctx, Path dataset, long t0) {
    FanoutConf c = ctx.conf();
    if (c.get(TASK) != Task.NODE) {
      throw new io.fanout.conf.FanoutConfigException(
          "quickstart on a typed dataset runs node classification only; drop --task link");
    }
    for (OptionDef<?> d : ALL) {
      if (d != DATASET && d != WORK_DIR && d != EPOCHS && d != SEED && d != TASK && c.given(d)) {
        throw new io.fanout.conf.FanoutConfigException(
            "option '" + d.name() + "' of quickstart is not built for typed datasets; drop it");
      }
    }
    TypedEndToEnd.Settings s = TypedEndToEnd.Settings.defaults().withSeed(c.get(SEED));
    if (c.given(EPOCHS)) {
      s = s.withEpochs(c.get(EPOCHS));
    }
    TypedEndToEnd.Result r =
        TypedEndToEnd.run(ctx.spark(), dataset, Path.of(c.get(WORK_DIR)), s, ctx.err());
    io.fanout.spark.EvaluateResult m = r.metrics();
    ctx.out()
        .printf(
            Locale.ROOT,
            "{\"dataset\":\"%s\",\"model\":\"%s\",\"test_micro_f1\":%.4f,"
                + "\"test_macro_f1\":%.4f,\"val_micro_f1\":%.4f,\"val_macro_f1\":%.4f,"
                + "\"test_accuracy\":%.4f,\"model_dir\":\"%s\",\"seconds\":%.1f}%n",
            dataset,
            s.model(),
            m.microF1("test"),
            m.macroF1("test"),
            m.microF1("val"),
            m.macroF1("val"),
            m.accuracy("test"),
            r.modelDir(),
            (System.nanoTime() - t0) / 1e9);
    ctx.err()
        .printf(
            Locale.ROOT,
            "test Micro-F1: %.4f  Macro-F1: %.4f (val %.4f / %.4f)%n",
            m.microF1("test"),
            m.macroF1("test"),
            m.microF1("val"),
            m.macroF1("val"));
    return 0;
  }
}
