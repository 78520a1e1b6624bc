package io.fanout.bench.dist;

import static io.fanout.conf.options.BenchAllReduceOptions.*;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.BenchAllReduceOptions;
import io.fanout.spark.train.BarrierRunner;
import io.fanout.train.GradientReducer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code bin/fanout bench-allreduce}: gradient all-reduce throughput next to raw loopback TCP
 * throughput measured in the same run, and the epoch time of synthetic data-parallel training with
 * 1 and 2 workers in a barrier stage. Prints one JSON object.
 */
public final class BenchAllReduceCommand implements Command {
  @Override
  public String name() {
    return "bench-allreduce";
  }

  @Override
  public String summary() {
    return "benchmark: gradient all-reduce vs raw loopback TCP, 1 vs 2 training workers";
  }

  @Override
  public List<OptionDef<?>> options() {
    return BenchAllReduceOptions.ALL;
  }

  @Override
  public int run(CommandContext ctx) throws Exception {
    FanoutConf conf = ctx.conf();
    int ranks = conf.get(RANKS);
    int repeats = conf.get(REPEATS);
    if (ranks < 1 || repeats < 1) {
      throw new FanoutConfigException("--ranks and --repeats must be >= 1");
    }
    List<Integer> sizes = new ArrayList<>();
    for (String s : conf.get(SIZES).split(",")) {
      try {
        int mb = Integer.parseInt(s.trim());
        if (mb <= 0 || mb > 1024) {
          throw new NumberFormatException();
        }
        sizes.add(mb);
      } catch (NumberFormatException e) {
        throw new FanoutConfigException(
            "option 'sizes-mb' has '" + s + "', expected MiB counts in 1..1024, e.g. 1,16,64");
      }
    }
    StringBuilder json = new StringBuilder("{\"ranks\":").append(ranks).append(",\"allreduce\":[");
    for (int i = 0; i < sizes.size(); i++) {
      int mb = sizes.get(i);
      int bytes = mb << 20;
      double raw = AllReduceBench.loopbackBytesPerSecond(bytes, repeats);
      double sec = AllReduceBench.allReduceSeconds(ranks, bytes / 4, repeats, 120_000);
      // Bus bandwidth: bytes each rank sends (and receives) per all-reduce, per second. Aggregate:
      // bytes all ranks send per second, what loopback carries on the same CPUs.
      double bus = 2.0 * (ranks - 1) / ranks * bytes / sec;
      double aggregate = bus * ranks;
      ctx.err()
          .printf(
              Locale.ROOT,
              "%d MiB: all-reduce %.1f ms, bus %.2f GB/s, aggregate %.2f GB/s, raw loopback %.2f"
                  + " GB/s (aggregate/raw %.2f, bus/raw %.2f)%n",
              mb,
              sec * 1e3,
              bus / 1e9,
              aggregate / 1e9,
              raw / 1e9,
              aggregate / raw,
              bus / raw);
      json.append(i == 0 ? "" : ",")
          .append(
              String.format(
                  Locale.ROOT,
                  "{\"mib\":%d,\"allreduce_ms\":%.3f,\"algorithm_gbps\":%.3f,\"bus_gbps\":%.3f,"
                      + "\"aggregate_gbps\":%.3f,\"raw_loopback_gbps\":%.3f,"
                      + "\"aggregate_to_loopback\":%.3f,\"bus_to_loopback\":%.3f}",
                  mb,
                  sec * 1e3,
                  bytes / sec / 1e9,
                  bus / 1e9,
                  aggregate / 1e9,
                  raw / 1e9,
                  aggregate / raw,
                  bus / raw));
    }
    json.append(']');
    if (conf.get(TRAIN)) {
      json.append(",\"training\":").append(training(ctx));
    }
    if (!conf.get(GRAPH).isBlank()) {
      json.append(",\"gnn_training\":").append(gnnTraining(ctx));
    }
    json.append('}');
    ctx.out().println(json);
    return 0;
  }

  /** Runs {@code bin/fanout train} on the given store and shards with 1 and then 2 workers. */
  private String gnnTraining(CommandContext ctx) throws Exception {
    FanoutConf conf = ctx.conf();
    if (conf.get(SHARDS).isBlank()) {
      throw new FanoutConfigException("--graph needs --shards (training shards of that graph)");
    }
    io.fanout.jobs.train.TrainCommand train = new io.fanout.jobs.train.TrainCommand();
    java.nio.file.Path work = java.nio.file.Files.createTempDirectory("fanout-bench-allreduce");
    StringBuilder sb = new StringBuilder("{\"epochs\":" + conf.get(TRAIN_EPOCHS));
    double one = 0;
    // The first run warms the JIT up and is not reported.
    int[] plan = {1, 1, 2};
    for (int run = 0; run < plan.length; run++) {
      int workers = plan[run];
      java.util.Map<String, String> opts = new java.util.LinkedHashMap<>();
      opts.put("graph", conf.get(GRAPH));
      opts.put("shards", conf.get(SHARDS));
      opts.put("model-dir", work.resolve("model-" + run).toString());
      opts.put("epochs", Integer.toString(conf.get(TRAIN_EPOCHS)));
      opts.put("workers", Integer.toString(workers));
      java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
      java.io.PrintStream out = new java.io.PrintStream(buf, true, "UTF-8");
      CommandContext tc =
          new CommandContext(
              FanoutConf.of("train", train.options(), opts), List.of(), ctx::spark, out, ctx.err());
      train.run(tc);
      String line = buf.toString("UTF-8").trim();
      java.util.regex.Matcher m =
          java.util.regex.Pattern.compile("\"train_seconds\":([0-9.]+)").matcher(line);
      double secs = m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
      double perEpoch = secs / conf.get(TRAIN_EPOCHS);
      if (run == 0) {
        continue;
      }
      if (workers == 1) {
        one = perEpoch;
      }
      ctx.err()
          .printf(Locale.ROOT, "GNN trainer, %d worker(s): %.3f s per epoch%n", workers, perEpoch);
      sb.append(
          String.format(
              Locale.ROOT,
              ",\"workers_%d\":{\"epoch_s\":%.3f%s}",
              workers,
              perEpoch,
              workers == 1 ? "" : String.format(Locale.ROOT, ",\"speedup\":%.3f", one / perEpoch)));
    }
    try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(work)) {
      for (java.nio.file.Path f :
          files.sorted(java.util.Comparator.reverseOrder()).toArray(java.nio.file.Path[]::new)) {
        java.nio.file.Files.deleteIfExists(f);
      }
    }
    return sb.append('}').toString();
  }

  private String training(CommandContext ctx) {
    FanoutConf conf = ctx.conf();
    SyntheticTraining.Model model =
        new SyntheticTraining.Model(
            7L, conf.get(EXAMPLES), conf.get(FEATURE_DIM), 10, conf.get(BATCH), 0.1f, 0.9f);
    var spark = ctx.spark();
    // Warm-up (JIT, executor start) with a short single-process run.
    new SyntheticTraining(model, 1, 1, null, 0, false, null).train(GradientReducer.LOCAL, null, 0);
    StringBuilder sb = new StringBuilder("{\"master\":\"" + spark.sparkContext().master() + "\"");
    sb.append(
        String.format(
            Locale.ROOT,
            ",\"examples\":%d,\"parameters\":%d",
            model.examples(),
            model.features() * 10 + 10));
    double one = 0;
    for (int workers = 1; workers <= 2; workers++) {
      // Same global batch (2 mini-batches per step) with 1 and 2 workers.
      long t0 = System.nanoTime();
      List<SyntheticTraining.Summary> res =
          BarrierRunner.run(
              spark,
              new BarrierRunner.Settings(workers, 120_000, 0),
              new SyntheticTraining(model, 1, 2, null, 0, false, null));
      double stage = (System.nanoTime() - t0) / 1e9;
      double epoch = 0;
      for (SyntheticTraining.Summary s : res) {
        epoch = Math.max(epoch, s.millis() / 1e3);
      }
      if (workers == 1) {
        one = epoch;
      }
      ctx.err()
          .printf(
              Locale.ROOT,
              "%d worker(s): epoch %.2f s, stage %.2f s, accuracy %.3f%n",
              workers,
              epoch,
              stage,
              res.get(0).accuracy());
      sb.append(
          String.format(
              Locale.ROOT,
              ",\"workers_%d\":{\"epoch_s\":%.3f,\"stage_s\":%.3f,\"steps\":%d,\"accuracy\":%.4f%s}",
              workers,
              epoch,
              stage,
              res.get(0).result().globalStepsRun(),
              res.get(0).accuracy(),
              workers == 1 ? "" : String.format(Locale.ROOT, ",\"speedup\":%.3f", one / epoch)));
    }
    return sb.append('}').toString();
  }
}
