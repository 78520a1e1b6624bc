package io.fanout.jobs.store;

import static io.fanout.conf.options.GenerateOptions.*;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.GenerateOptions;
import io.fanout.spark.generate.GraphGenerator;
import io.fanout.spark.generate.TypedGraphGenerator;
import io.fanout.spark.generate.TypedGraphLayout;
import io.fanout.spark.internal.JsonLine;
import io.fanout.store.InvalidInputException;
import io.fanout.store.OutputLock;
import io.fanout.store.OutputPaths;
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
 * OUTPUT/edges.parquet}; with {@code --types}, a typed graph ({@link TypedGraphGenerator}) written
 * as {@code OUTPUT/vertices/<type>.parquet}, {@code OUTPUT/edges/<relation>.parquet} and {@code
 * OUTPUT/graph.json} for {@code prepare --graph-spec}.
 */
public final class GenerateCommand implements Command {
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
    return GenerateOptions.ALL;
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
    Path dir = OutputPaths.check(Paths.get(conf.get(OUTPUT)), "--output").toAbsolutePath();
    OutputPaths.checkUsable(dir, "--output");
    try (OutputLock lock = OutputLock.acquire(dir, "generated tables")) {
      return generate(spark, conf, dir);
    }
  }

  /** Writes the tables into {@code dir} while holding its writer's lock. */
  private static Map<String, Object> generate(SparkSession spark, FanoutConf conf, Path dir) {
    if (!conf.get(TYPES).isBlank()) {
      return generateTyped(spark, conf, dir);
    }
    conf.refuseIgnored(RELATIONS, "relations belong to a typed graph; give --types too");
    conf.refuseIgnored(TARGET_TYPE, "the target type belongs to a typed graph; give --types too");
    boolean overwrite = conf.get(OVERWRITE);
    Path v = dir.resolve("vertices.parquet");
    Path e = dir.resolve("edges.parquet");
    if (!overwrite && (Files.exists(v) || Files.exists(e))) {
      throw new InvalidInputException(
          dir + ": already holds vertices.parquet or edges.parquet; pass --overwrite to replace");
    }
    GraphGenerator g =
        new GraphGenerator(
            conf.get(NUM_VERTICES),
            conf.get(NUM_EDGES),
            conf.get(FEATURE_DIM),
            conf.get(CLASSES),
            conf.get(SEED),
            conf.get(HOMOPHILY));
    g.write(spark, tasks(spark, conf), v.toUri().toString(), e.toUri().toString());
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("vertices_path", v.toString());
    out.put("edges_path", e.toString());
    out.put("vertices", conf.get(NUM_VERTICES));
    out.put("edges", conf.get(NUM_EDGES));
    out.put("feature_dim", conf.get(FEATURE_DIM));
    out.put("classes", conf.get(CLASSES));
    out.put("seed", conf.get(SEED));
    return out;
  }

  /**
   * {@code --types}: a table per type and relation and {@link TypedGraphGenerator#GRAPH_SPEC} for
   * {@code prepare --graph-spec}.
   */
  private static Map<String, Object> generateTyped(SparkSession spark, FanoutConf conf, Path dir) {
    conf.refuseIgnored(NUM_VERTICES, "--types gives each type's count");
    conf.refuseIgnored(NUM_EDGES, "--relations gives each relation's edges");
    TypedGraphLayout layout =
        TypedGraphLayout.parse(
            conf.get(TYPES),
            conf.get(RELATIONS),
            conf.get(TARGET_TYPE),
            conf.get(FEATURE_DIM),
            conf.get(HOMOPHILY));
    TypedGraphGenerator g = new TypedGraphGenerator(layout, conf.get(CLASSES), conf.get(SEED));
    Path spec = dir.resolve(TypedGraphGenerator.GRAPH_SPEC);
    if (!conf.get(OVERWRITE)
        && (Files.exists(spec)
            || Files.exists(dir.resolve("vertices"))
            || Files.exists(dir.resolve("edges")))) {
      throw new InvalidInputException(
          dir + ": already holds graph.json, vertices/ or edges/; pass --overwrite to replace");
    }
    g.write(spark, tasks(spark, conf), dir);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("graph_spec", spec.toString());
    Map<String, Object> types = new LinkedHashMap<>();
    for (TypedGraphLayout.Type t : layout.types()) {
      types.put(t.name(), Map.of("vertices", t.count(), "feature_dim", t.dim()));
    }
    Map<String, Object> relations = new LinkedHashMap<>();
    for (TypedGraphLayout.Relation r : layout.relations()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("src_type", layout.types().get(r.src()).name());
      m.put("dst_type", layout.types().get(r.dst()).name());
      m.put("edges", r.edges());
      m.put("homophily", r.homophily());
      relations.put(r.name(), m);
    }
    out.put("types", types);
    out.put("relations", relations);
    out.put("vertices", layout.numVertices());
    out.put("edges", layout.numEdges());
    out.put("target_type", layout.types().get(layout.target()).name());
    out.put("classes", conf.get(CLASSES));
    out.put("seed", conf.get(SEED));
    return out;
  }

  private static int tasks(SparkSession spark, FanoutConf conf) {
    int tasks = conf.get(TASKS);
    return tasks > 0 ? tasks : spark.sparkContext().defaultParallelism();
  }
}
