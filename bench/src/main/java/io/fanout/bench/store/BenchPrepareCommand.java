package io.fanout.bench.store;

import static io.fanout.conf.options.BenchPrepareOptions.*;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.BenchEdgeSort;
import io.fanout.conf.options.BenchIdLookup;
import io.fanout.conf.options.BenchPrepareOptions;
import io.fanout.jobs.train.EndToEnd;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareResult;
import io.fanout.spark.generate.GraphGenerator;
import io.fanout.spark.internal.JobLabels;
import io.fanout.spark.internal.JsonLine;
import io.fanout.spark.internal.TaskTotals;
import io.fanout.store.DisjointPaths;
import io.fanout.store.StoreManifest;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * {@code bin/fanout bench-prepare}: generates a synthetic graph (or takes the tables of {@code
 * --input}), scans it as plain Parquet (the limit: reading every input value; then once more, warm;
 * then once with compiled expressions only, the strictest limit), then prepares it ({@code
 * --undirected --dedupe --self-loops drop}; with {@code --edge-sort both}, once per edge sort; with
 * {@code --id-lookup both}, once per endpoint lookup), and prints one JSON line with the wall
 * times, their ratios, the store's size and the peak memory.
 */
public final class BenchPrepareCommand implements Command {
  private static final String SCAN = "plain Parquet scan of the input";

  @Override
  public String name() {
    return "bench-prepare";
  }

  @Override
  public String summary() {
    return "benchmark prepare against a plain Parquet scan of the same generated input";
  }

  @Override
  public List<OptionDef<?>> options() {
    return BenchPrepareOptions.ALL;
  }

  @Override
  public int run(CommandContext ctx) throws IOException {
    FanoutConf conf = ctx.conf();
    SparkSession spark = ctx.spark();
    Path work = Paths.get(conf.get(WORK_DIR)).toAbsolutePath();
    Path given = conf.get(INPUT).isEmpty() ? null : Paths.get(conf.get(INPUT)).toAbsolutePath();
    if (given != null) {
      checkInput(given, work);
    }
    BenchEdgeSort sort = conf.get(EDGE_SORT);
    BenchIdLookup lookup = conf.get(ID_LOOKUP);
    if ((lookup == BenchIdLookup.BOTH || lookup == BenchIdLookup.TASK)
        && sort != BenchEdgeSort.TASK) {
      throw new FanoutConfigException(
          "--id-lookup "
              + lookup.id()
              + " needs --edge-sort task (Spark's sort orders rows the joins gave dense ids), got"
              + " --edge-sort "
              + sort.id());
    }
    Path input = given != null ? given : work.resolve("input");
    Path store = work.resolve("store");
    delete(work);
    Files.createDirectories(work);

    Double generate = null;
    if (given == null) {
      long t0 = System.nanoTime();
      GraphGenerator g =
          new GraphGenerator(
              conf.get(NUM_VERTICES), conf.get(NUM_EDGES), conf.get(FEATURE_DIM), 8, 0, 0.8);
      int tasks = spark.sparkContext().defaultParallelism();
      g.write(spark, tasks, vertexTable(input), edgeTable(input));
      generate = seconds(t0);
      ctx.err().printf("bench-prepare: generated in %.1f s%n", generate);
    }

    // The first scan is the limit (as in every earlier figure); a second one, in a JVM the first
    // warmed up, is reported beside it: scans of one input have taken 6 to 21 s.
    Timed<Long> firstScan = timedScan(ctx, spark, input, 1, FEATURES_BY_LAMBDA, "");
    Timed<Long> warmScan = timedScan(ctx, spark, input, 2, FEATURES_BY_LAMBDA, " again");
    // The scans above sum the features through a lambda, which Spark evaluates row by row,
    // boxing every element; this one reads the same values through compiled expressions only.
    Timed<Long> compiledScan =
        timedScan(ctx, spark, input, 3, FEATURES_COMPILED, ", compiled expressions only,");

    String firstLookup = lookup == BenchIdLookup.BOTH ? "task" : lookup.id();
    Timed<PrepareResult> task = null;
    if (sort != BenchEdgeSort.SQL) {
      task = timed(spark, () -> prepare(spark, input, store, "task", firstLookup, conf));
      ctx.err()
          .printf(
              "bench-prepare: prepare --edge-sort task --id-lookup %s in %.1f s%n",
              firstLookup, task.seconds);
    }
    Timed<PrepareResult> sql = null;
    if (sort != BenchEdgeSort.TASK) {
      Path to = sort == BenchEdgeSort.SQL ? store : work.resolve("store-sql");
      sql = timed(spark, () -> prepare(spark, input, to, "sql", lookup.id(), conf));
      ctx.err().printf("bench-prepare: prepare --edge-sort sql in %.1f s%n", sql.seconds);
    }
    Timed<PrepareResult> sqlLookup = null;
    if (lookup == BenchIdLookup.BOTH) {
      Path to = work.resolve("store-sql-lookup");
      sqlLookup = timed(spark, () -> prepare(spark, input, to, "task", "sql", conf));
      ctx.err()
          .printf(
              "bench-prepare: prepare --edge-sort task --id-lookup sql in %.1f s%n",
              sqlLookup.seconds);
    }
    Timed<PrepareResult> main = task != null ? task : sql;
    PrepareResult r = main.result;
    double scan = firstScan.seconds;
    double prepare = main.seconds;

    Map<String, Object> out = new LinkedHashMap<>();
    long edgeRows = firstScan.result; // --num-edges when generated, else what the input holds
    long storeBytes = r.manifest().fileBytes();
    out.put("bench", "prepare");
    if (given != null) {
      out.put("input", given.toString());
    }
    out.put("vertices", r.manifest().vertices);
    out.put("edge_rows", edgeRows);
    out.put("feature_dim", r.manifest().featureDim);
    out.put("store_edges", r.manifest().edges);
    out.put("partitions", r.manifest().partitions);
    out.put("spark_master", spark.sparkContext().master());
    out.put("cores", Runtime.getRuntime().availableProcessors());
    if (generate != null) {
      out.put("generate_s", round(generate));
    }
    out.put("scan_s", round(scan));
    out.put("prepare_s", round(prepare));
    out.put("prepare_over_scan", round(prepare / scan));
    out.put("input_edge_rows_per_s", Math.round(edgeRows / prepare));
    out.put("warm_scan_s", round(warmScan.seconds));
    out.put("prepare_over_warm_scan", round(prepare / warmScan.seconds));
    out.put("compiled_scan_s", round(compiledScan.seconds));
    out.put("prepare_over_compiled_scan", round(prepare / compiledScan.seconds));
    out.put("scan_cpu_s", round(firstScan.cpuSeconds));
    out.put("warm_scan_cpu_s", round(warmScan.cpuSeconds));
    out.put("compiled_scan_cpu_s", round(compiledScan.cpuSeconds));
    out.put("prepare_cpu_s", round(main.cpuSeconds));
    out.put("prepare_shuffle_bytes", main.shuffleBytes);
    out.put("edge_sort", sort == BenchEdgeSort.BOTH ? "task" : sort.id());
    out.put("id_lookup", firstLookup);
    out.put("store_bytes", storeBytes);
    out.put("store_bytes_per_edge", round((double) storeBytes / Math.max(1, r.manifest().edges)));
    if (sort == BenchEdgeSort.BOTH) {
      out.put("prepare_sql_s", round(sql.seconds));
      out.put("prepare_sql_over_scan", round(sql.seconds / scan));
      out.put("prepare_sql_cpu_s", round(sql.cpuSeconds));
      out.put("same_store_bytes", sameFiles(sql.result.manifest(), r.manifest()));
      delete(work.resolve("store-sql"));
    }
    if (sqlLookup != null) {
      out.put("prepare_sql_lookup_s", round(sqlLookup.seconds));
      out.put("prepare_sql_lookup_over_scan", round(sqlLookup.seconds / scan));
      out.put("prepare_sql_lookup_cpu_s", round(sqlLookup.cpuSeconds));
      out.put("prepare_sql_lookup_shuffle_bytes", sqlLookup.shuffleBytes);
      out.put("same_store_bytes", sameFiles(sqlLookup.result.manifest(), r.manifest()));
      delete(work.resolve("store-sql-lookup"));
    }
    out.put("peak_heap_bytes", peakHeap());
    out.put("peak_rss_bytes", peakRss());
    out.put("max_heap_bytes", Runtime.getRuntime().maxMemory());
    ctx.out().println(JsonLine.of(out));
    if (!conf.get(KEEP)) {
      delete(work);
    }
    return 0;
  }

  /**
   * Refuses an {@code --input} without both tables, or one the work folder would delete (the bench
   * empties {@code --work-dir} first and removes it afterwards).
   */
  static void checkInput(Path input, Path work) {
    for (String table : List.of("vertices.parquet", "edges.parquet")) {
      if (!Files.exists(input.resolve(table))) {
        throw new FanoutConfigException(
            "--input "
                + input
                + " has no "
                + table
                + " (expected the layout bin/fanout generate"
                + " writes: INPUT/vertices.parquet and INPUT/edges.parquet)");
      }
    }
    // the bench empties --work-dir before it starts and removes it afterwards
    new DisjointPaths().input("--input", input).output("--work-dir", work).check();
  }

  private static String vertexTable(Path input) {
    return input.resolve("vertices.parquet").toString();
  }

  private static String edgeTable(Path input) {
    return input.resolve("edges.parquet").toString();
  }

  /**
   * Wall and executor CPU seconds and shuffle bytes written of one measured step, and its result.
   */
  private record Timed<T>(double seconds, double cpuSeconds, long shuffleBytes, T result) {}

  private static <T> Timed<T> timed(SparkSession spark, Supplier<T> step) {
    try (TaskTotals totals = TaskTotals.start(spark.sparkContext())) {
      long t = System.nanoTime();
      T r = step.get();
      double wall = seconds(t);
      return new Timed<>(wall, totals.cpuSeconds(), totals.shuffleBytes(), r);
    }
  }

  private static PrepareResult prepare(
      SparkSession spark,
      Path input,
      Path store,
      String edgeSort,
      String idLookup,
      FanoutConf conf) {
    return EndToEnd.prepare(Fanout.get(spark), input)
        .option("partitions", Integer.toString(conf.get(PARTITIONS)))
        .option("edge-sort", edgeSort)
        .option("id-lookup", idLookup)
        .output(store.toString())
        .execute();
  }

  /** Whether two stores list the same files with the same sizes and CRC32C checksums. */
  static boolean sameFiles(StoreManifest a, StoreManifest b) {
    if (a.files.size() != b.files.size()) {
      return false;
    }
    for (int i = 0; i < a.files.size(); i++) {
      StoreManifest.FileEntry x = a.files.get(i);
      StoreManifest.FileEntry y = b.files.get(i);
      if (!x.path.equals(y.path) || x.bytes != y.bytes || !x.crc32c.equals(y.crc32c)) {
        return false;
      }
    }
    return true;
  }

  /** The features read by the first scans: their sum through a lambda, evaluated row by row. */
  private static final String FEATURES_BY_LAMBDA = "sum(aggregate(features, 0D, (a, x) -> a + x))";

  /**
   * The features read by compiled expressions only: each row's largest ({@code array_max} reads
   * every element).
   */
  private static final String FEATURES_COMPILED = "sum(array_max(features))";

  /** Scan {@code k} of the three, timed, labelled in the Spark UI and reported on stderr. */
  private Timed<Long> timedScan(
      CommandContext ctx, SparkSession spark, Path input, int k, String features, String how) {
    Timed<Long> t =
        timed(
            spark,
            () -> JobLabels.call(spark, name(), SCAN, k, 3, () -> scan(spark, input, features)));
    ctx.err().printf("bench-prepare: plain Parquet scan%s in %.1f s%n", how, t.seconds);
    return t;
  }

  /**
   * Reads every input value: ids, labels, splits, {@code features}, both edge endpoints; returns
   * the edge rows.
   */
  private static long scan(SparkSession spark, Path input, String features) {
    Dataset<Row> v = spark.read().parquet(vertexTable(input));
    Dataset<Row> e = spark.read().parquet(edgeTable(input));
    v.selectExpr("sum(id)", "sum(label)", "count(split)", features).collectAsList();
    return e.selectExpr("sum(src)", "sum(dst)", "count(*)").collectAsList().get(0).getLong(2);
  }

  private static double seconds(long since) {
    return (System.nanoTime() - since) / 1e9;
  }

  private static double round(double x) {
    return Math.round(x * 1000) / 1000.0;
  }

  /** Sum of the peak usage of the heap pools since the JVM started. */
  static long peakHeap() {
    long sum = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP && p.getPeakUsage() != null) {
        sum += p.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  /** The process's peak resident set (VmHWM), or -1 where /proc is not available. */
  static long peakRss() {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  private static void delete(Path p) throws IOException {
    if (!Files.exists(p)) {
      return;
    }
    try (Stream<Path> s = Files.walk(p)) {
      for (Path f : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(f);
      }
    }
  }
}
