package io.fanout.bench.store;

import static io.fanout.conf.options.BenchPartitionOptions.*;
import static org.apache.spark.sql.functions.col;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.BenchPartitionOptions;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.GraphStore;
import io.fanout.jobs.train.EndToEnd;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.spark.PrepareResult;
import io.fanout.spark.SampleResult;
import io.fanout.spark.internal.JsonLine;
import io.fanout.spark.partition.VertexPartitioners;
import io.fanout.spark.prepare.DatasetGraphSpec;
import io.fanout.store.DisjointPaths;
import io.fanout.store.InvalidInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code bin/fanout bench-partition}: partitions one graph (a dataset folder or a store) with hash,
 * range, multilevel and, when installed, {@code gpmetis -ufactor=50}, at several part counts, and
 * prints one JSON object with each result's edge cut (fraction of undirected edges whose ends lie
 * in different parts), vertex imbalance (largest part / average part) and wall time.
 *
 * <p>With {@code --shuffle-parts K,...} (a dataset only) it also prepares the dataset into K hash
 * and K multilevel store partitions and samples each in partitioned mode, with and without {@code
 * --batch-by-partition}, reporting the shuffle bytes per epoch of all four runs ({@link
 * #SHUFFLE_SAMPLE} gives the sampling settings): what the lower cut saves where it matters.
 *
 * <p>On a typed dataset folder (one that describes itself in a {@code schema.json}, as {@code
 * hgb_acm} does) only the shuffle comparison runs: each store of {@code --shuffle-parts} is
 * prepared with {@code --graph-spec}, measured by {@link TypedStoreCut} (the cut counts CSR entries
 * whose ends lie in partitions of different indexes) and sampled from the dataset's labelled type.
 */
public final class BenchPartitionCommand implements Command {
  /**
   * The sampling of the shuffle comparison: {@code --mode partitioned --split all --batch-size 64
   * --fanouts 10,5 --epochs 2 --seed 7}.
   */
  static final Map<String, String> SHUFFLE_SAMPLE = shuffleSample();

  private static Map<String, String> shuffleSample() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("mode", "partitioned");
    m.put("split", "all");
    m.put("batch-size", "64");
    m.put("fanouts", "10,5");
    m.put("epochs", "2");
    m.put("seed", "7");
    return java.util.Collections.unmodifiableMap(m);
  }

  @Override
  public String name() {
    return "bench-partition";
  }

  @Override
  public String summary() {
    return "edge cut, imbalance and time of hash, range, multilevel and gpmetis partitions";
  }

  @Override
  public String positionalUsage() {
    return "[STORE]";
  }

  @Override
  public List<OptionDef<?>> options() {
    return BenchPartitionOptions.ALL;
  }

  @Override
  public int run(CommandContext ctx) throws Exception {
    FanoutConf conf = ctx.conf();
    int[] ks = parts(conf.get(PARTS));
    String dataset = conf.get(DATASET);
    if (dataset.isEmpty() == (ctx.positional().size() != 1)) {
      throw new FanoutConfigException(
          "bench-partition needs either one STORE or --dataset DIR, got store "
              + ctx.positional()
              + " and --dataset '"
              + dataset
              + "'");
    }
    int[] shuffleKs =
        conf.get(SHUFFLE_PARTS).isBlank() ? new int[0] : parts(conf.get(SHUFFLE_PARTS));
    if (shuffleKs.length > 0 && dataset.isEmpty()) {
      throw new FanoutConfigException(
          "--shuffle-parts prepares stores from the input tables; give --dataset DIR, not a STORE");
    }
    if (!dataset.isEmpty() && DatasetGraphSpec.isTyped(Paths.get(dataset))) {
      return typed(ctx, conf, Paths.get(dataset), shuffleKs);
    }
    new DisjointPaths()
        .input("--dataset", dataset.isEmpty() ? null : Paths.get(dataset))
        .input("STORE", dataset.isEmpty() ? Paths.get(ctx.positional().get(0)) : null)
        .output("--work-dir", Paths.get(conf.get(WORK_DIR)))
        .check();
    SparkSession spark = ctx.spark();
    Input in =
        dataset.isEmpty() ? fromStore(spark, ctx.positional().get(0)) : fromDataset(spark, dataset);
    BenchGraph g = BenchGraph.of(in.ids.collectAsList(), in.edges.collectAsList());
    ctx.err()
        .printf("bench-partition: %d vertices, %d undirected edges%n", g.n(), g.adj().length / 2);
    Path work = Paths.get(conf.get(WORK_DIR)).toAbsolutePath();
    Path metisFile = null;
    if (GpMetis.installed()) {
      Files.createDirectories(work);
      metisFile = work.resolve("graph.metis");
      GpMetis.write(metisFile, g.xadj(), g.adj());
    }
    long seed = conf.get(PrepareOptions.PARTITION_SEED);
    int coarse = conf.get(PrepareOptions.PARTITION_COARSE_VERTICES);
    List<Map<String, Object>> results = new ArrayList<>();
    for (int k : ks) {
      for (String name : List.of("hash", "range", VertexPartitioners.MULTILEVEL)) {
        long t0 = System.nanoTime();
        Dataset<Row> a;
        try {
          a =
              VertexPartitioners.readsEdges(name)
                  ? VertexPartitioners.graph(name, coarse).assign(in.ids, in.edges, k, seed)
                  : in.ids.select(
                      col("id"),
                      VertexPartitioners.byName(name).assign(in.ids, col("id"), k).as("part"));
        } catch (FanoutConfigException e) { // range on string ids
          results.add(failed(k, name, e.getMessage()));
          continue;
        }
        int[] part = g.parts(a.collectAsList());
        results.add(result(k, name, g, part, seconds(t0)));
        ctx.err().printf("bench-partition: k=%d %s done%n", k, name);
      }
      if (metisFile != null) {
        long t0 = System.nanoTime();
        int[] part = GpMetis.partition(metisFile, g.n(), k);
        results.add(result(k, "gpmetis", g, part, seconds(t0)));
      }
    }
    List<Map<String, Object>> shuffles = new ArrayList<>();
    for (int k : shuffleKs) {
      for (String name : List.of("hash", VertexPartitioners.MULTILEVEL)) {
        shuffles.add(
            shuffle(
                ctx,
                EndToEnd.prepare(Fanout.get(spark), Paths.get(dataset)),
                work,
                k,
                name,
                seed,
                coarse,
                false));
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("bench", "partition");
    out.put("input", dataset.isEmpty() ? ctx.positional().get(0) : dataset);
    out.put("vertices", g.n());
    out.put("undirected_edges", g.adj().length / 2);
    out.put("spark_master", spark.sparkContext().master());
    out.put("gpmetis", metisFile != null);
    out.put("results", results);
    if (shuffleKs.length > 0) {
      out.put("shuffle_sample", SHUFFLE_SAMPLE);
      out.put("shuffle", shuffles);
    }
    ctx.out().println(JsonLine.of(out));
    return 0;
  }

  /**
   * The shuffle comparison on a typed dataset folder: one JSON object with, per part count and
   * partitioner, the store's cut and imbalance ({@link TypedStoreCut}) and the shuffle bytes per
   * epoch with and without {@code --batch-by-partition}.
   */
  private static int typed(CommandContext ctx, FanoutConf conf, Path dataset, int[] shuffleKs) {
    conf.refuseIgnored(
        PARTS,
        "on a typed dataset only the stores of --shuffle-parts are partitioned and measured");
    if (shuffleKs.length == 0) {
      throw new FanoutConfigException(
          "bench-partition on a typed dataset ("
              + dataset
              + " has a schema.json) compares partitioned sampling's shuffle; give --shuffle-parts"
              + " K,...");
    }
    Path work = Paths.get(conf.get(WORK_DIR)).toAbsolutePath();
    new DisjointPaths().input("--dataset", dataset).output("--work-dir", work).check();
    SparkSession spark = ctx.spark();
    long seed = conf.get(PrepareOptions.PARTITION_SEED);
    int coarse = conf.get(PrepareOptions.PARTITION_COARSE_VERTICES);
    List<Map<String, Object>> shuffles = new ArrayList<>();
    for (int k : shuffleKs) {
      for (String name : List.of("hash", VertexPartitioners.MULTILEVEL)) {
        PrepareAction prepare =
            Fanout.get(spark).prepare().option("graph-spec", dataset.toString());
        shuffles.add(shuffle(ctx, prepare, work, k, name, seed, coarse, true));
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("bench", "partition");
    out.put("input", dataset.toString());
    out.put("typed", true);
    out.put("spark_master", spark.sparkContext().master());
    out.put("shuffle_sample", SHUFFLE_SAMPLE);
    out.put("shuffle", shuffles);
    ctx.out().println(JsonLine.of(out));
    return 0;
  }

  /**
   * Prepares a dataset ({@code prepare}, given its input) into {@code k} store partitions by {@code
   * partitioner} and samples it in partitioned mode with and without {@code --batch-by-partition};
   * of a typed store also reports its {@link TypedStoreCut}.
   */
  private static Map<String, Object> shuffle(
      CommandContext ctx,
      PrepareAction prepare,
      Path work,
      int k,
      String partitioner,
      long seed,
      int coarse,
      boolean typed) {
    Fanout fanout = Fanout.get(ctx.spark());
    Path store = work.resolve("shuffle").resolve(partitioner + "-" + k);
    PrepareResult prepared =
        prepare
            .option("partitions", Integer.toString(k))
            .option("partitioner", partitioner)
            .option(PrepareOptions.PARTITION_SEED.name(), Long.toString(seed))
            .option(PrepareOptions.PARTITION_COARSE_VERTICES.name(), Integer.toString(coarse))
            .option("overwrite", "true")
            .output(store.toString())
            .execute();
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("k", k);
    r.put("partitioner", partitioner);
    r.put("store_edges", prepared.manifest().edges);
    if (typed) {
      TypedStoreCut c = TypedStoreCut.of(store);
      r.put("vertices", c.vertices());
      r.put("edge_cut", round(c.cutFraction()));
      r.put("vertex_imbalance", round(c.imbalance()));
    }
    for (boolean byPartition : new boolean[] {false, true}) {
      SampleResult s =
          fanout
              .sample(store.toString())
              .output(store + "-shards-" + (byPartition ? "by-partition" : "mixed"))
              .overwrite(true)
              .options(SHUFFLE_SAMPLE)
              .option("batch-by-partition", Boolean.toString(byPartition))
              .execute();
      r.put(
          byPartition ? "shuffle_bytes_per_epoch_batch_by_partition" : "shuffle_bytes_per_epoch",
          s.shuffleBytes() < 0 ? null : s.shuffleBytes() / Math.max(1, s.epochs()));
    }
    ctx.err().printf("bench-partition: k=%d %s shuffle measured%n", k, partitioner);
    return r;
  }

  private static Map<String, Object> result(
      int k, String name, BenchGraph g, int[] part, double seconds) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("k", k);
    r.put("partitioner", name);
    r.put("edge_cut", round(g.cut(part)));
    r.put("vertex_imbalance", round(BenchGraph.imbalance(part, k)));
    r.put("seconds", round(seconds));
    return r;
  }

  private static Map<String, Object> failed(int k, String name, String error) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("k", k);
    r.put("partitioner", name);
    r.put("error", error);
    return r;
  }

  /** Vertex ids {@code (id)} and edges {@code (src, dst)}. */
  private record Input(Dataset<Row> ids, Dataset<Row> edges) {}

  private static Input fromDataset(SparkSession spark, String dir) {
    Path v = Paths.get(dir, "vertices.parquet");
    Path e = Paths.get(dir, "edges.parquet");
    if (!Files.exists(v) || !Files.exists(e)) {
      throw new InvalidInputException(
          "--dataset "
              + dir
              + ": expected vertices.parquet and edges.parquet in it (or a typed dataset's"
              + " schema.json); pass a dataset folder or a STORE");
    }
    return new Input(
        spark.read().parquet(v.toString()).select(col("id")),
        spark.read().parquet(e.toString()).select(col("src"), col("dst")));
  }

  private static Input fromStore(SparkSession spark, String store) {
    List<Row> ids = new ArrayList<>();
    List<Row> edges = new ArrayList<>();
    try (GraphStore s = GraphStore.open(Paths.get(store))) {
      CsrGraph csr = s.csr();
      for (int v = 0; v < csr.numVertices(); v++) {
        ids.add(RowFactory.create((long) v));
        for (long p = csr.rowStart(v); p < csr.rowEnd(v); p++) {
          edges.add(RowFactory.create((long) csr.neighbor(p), (long) v));
        }
      }
    }
    StructType vs = new StructType().add("id", DataTypes.LongType, false);
    StructType es =
        new StructType()
            .add("src", DataTypes.LongType, false)
            .add("dst", DataTypes.LongType, false);
    return new Input(spark.createDataFrame(ids, vs), spark.createDataFrame(edges, es));
  }

  static int[] parts(String list) {
    String[] items = list.split(",");
    int[] ks = new int[items.length];
    for (int i = 0; i < items.length; i++) {
      try {
        ks[i] = Integer.parseInt(items[i].trim());
      } catch (NumberFormatException e) {
        ks[i] = 0;
      }
      if (ks[i] < 1) {
        throw new FanoutConfigException(
            "--parts: expected comma-separated part counts >= 1 (e.g. 2,4,8,16), got '"
                + list
                + "'");
      }
    }
    return ks;
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  private static double round(double x) {
    return Math.round(x * 10000) / 10000.0;
  }
}
