package io.fanout.jobs.store;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.spark.generate.GraphGenerator;
import io.fanout.spark.internal.JsonLine;
import io.fanout.store.InvalidInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * {@code bin/fanout generate}: a synthetic power-law graph with labeled communities and correlated
 * features ({@link GraphGenerator}), written as {@code OUTPUT/vertices.parquet} and {@code
 * OUTPUT/edges.parquet}.
 */
public final class GenerateCommand implements Command {
  static final OptionDef<String> OUTPUT =
      OptionDef.string("output", null, "folder for vertices.parquet and edges.parquet");
  static final OptionDef<Long> VERTICES =
      OptionDef.longValue("vertices", 10_000, "number of vertices");
  static final OptionDef<Long> EDGES =
      OptionDef.longValue("edges", 100_000, "number of directed edge rows");
  static final OptionDef<Integer> FEATURE_DIM =
      OptionDef.integer("feature-dim", 16, "features per vertex");
  static final OptionDef<Integer> CLASSES =
      OptionDef.integer("classes", 8, "number of communities (labels)");
  static final OptionDef<Long> SEED = OptionDef.longValue("seed", 0, "random seed");
  static final OptionDef<Double> HOMOPHILY =
      OptionDef.doubleValue(
          "homophily", 0.8, "probability that an edge stays inside its source's community");
  static final OptionDef<Integer> TASKS =
      OptionDef.integer("tasks", 0, "Spark tasks (and files) per table; 0 = default parallelism");
  static final OptionDef<Boolean> OVERWRITE =
      OptionDef.bool("overwrite", false, "replace existing tables in the output folder");

  @Override
  public String name() {
    return "generate";
  }

  @Override
  public String summary() {
    return "write a synthetic power-law graph with labeled communities as Parquet tables";
  }

  @Override
  public List<OptionDef<?>> options() {
    return List.of(
        OUTPUT, VERTICES, EDGES, FEATURE_DIM, CLASSES, SEED, HOMOPHILY, TASKS, OVERWRITE);
  }

  @Override
  public int run(CommandContext ctx) {
    long t0 = System.nanoTime();
    Map<String, Object> out = generate(ctx.spark(), ctx.conf());
    out.put("seconds", Math.round((System.nanoTime() - t0) / 1e6) / 1000.0);
    ctx.out().println(JsonLine.of(out));
    return 0;
  }

  /** Generates and writes the tables; returns a summary. */
  static Map<String, Object> generate(SparkSession spark, FanoutConf conf) {
    Path dir = Paths.get(conf.get(OUTPUT)).toAbsolutePath();
    boolean overwrite = conf.get(OVERWRITE);
    Path v = dir.resolve("vertices.parquet");
    Path e = dir.resolve("edges.parquet");
    if (!overwrite && (Files.exists(v) || Files.exists(e))) {
      throw new InvalidInputException(
          dir + ": already holds vertices.parquet or edges.parquet; pass --overwrite to replace");
    }
    GraphGenerator g =
        new GraphGenerator(
            conf.get(VERTICES),
            conf.get(EDGES),
            conf.get(FEATURE_DIM),
            conf.get(CLASSES),
            conf.get(SEED),
            conf.get(HOMOPHILY));
    int tasks = conf.get(TASKS);
    if (tasks <= 0) {
      tasks = spark.sparkContext().defaultParallelism();
    }
    g.write(spark, tasks, v.toUri().toString(), e.toUri().toString());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("vertices_path", v.toString());
    out.put("edges_path", e.toString());
    out.put("vertices", conf.get(VERTICES));
    out.put("edges", conf.get(EDGES));
    out.put("feature_dim", conf.get(FEATURE_DIM));
    out.put("classes", conf.get(CLASSES));
    out.put("seed", conf.get(SEED));
    return out;
  }
}
