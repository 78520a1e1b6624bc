package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.concat_ws;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.udf;
import static org.apache.spark.sql.functions.when;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.conf.options.QuantizeOptions;
import io.fanout.spark.JobLabels;
import io.fanout.spark.JobSteps;
import io.fanout.spark.PreparePlan;
import io.fanout.spark.PrepareResult;
import io.fanout.spark.partition.HashPartitioner;
import io.fanout.spark.partition.VertexPartitioners;
import io.fanout.store.CsrFileWriter;
import io.fanout.store.FeatureFileWriter;
import io.fanout.store.FileTrees;
import io.fanout.store.IdRankTable;
import io.fanout.store.InvalidInputException;
import io.fanout.store.NodesFileWriter;
import io.fanout.store.OutputCommit;
import io.fanout.store.OutputPaths;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.store.StoreOutput;
import io.fanout.store.WeightFileWriter;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.types.DataTypes;

/**
 * The {@code prepare} pipeline. Spark does the work on executors; the driver only sees
 * per-partition counts and metadata.
 *
 * <ol>
 *   <li>Validate both tables (one aggregation each) and count vertices per partition.
 *   <li>Prefix sums of the counts give each partition's {@code first_vertex}.
 *   <li>Shuffle vertices to their partitions sorted by original id; each task writes its {@code
 *       nodes/} and {@code features/} files and its part of the id map (Parquet), and with {@code
 *       --id-lookup task} its id rank table (staging only).
 *   <li>Give edge endpoints their dense ids, expand/clean the edges per the options, shuffle them
 *       to the partition of their destination; each task orders its edges by (destination, source)
 *       and writes its {@code csr/} file. With {@code --id-lookup task} the edges are shuffled in
 *       original ids and the csr tasks look both endpoints up in the id rank tables the vertex
 *       tasks wrote; otherwise Spark joins them with the id map first.
 *   <li>Publish: move files into place, write the manifest last.
 * </ol>
 */
/** The {@code prepare} pipeline behind {@link io.fanout.spark.PrepareAction}. */
public final class PrepareJob {
  private static final String PART = "_part";
  private static final String KEY = "_key";
  private static final String WEIGHT = "_weight";

  // The steps whose Spark jobs carry the description "fanout prepare: <step> (i/n)", in order.
  static final String READ = "read the input schemas";
  static final String EDGE_CHECKS = "validate edges";
  static final String ASSIGN = "assign vertices to partitions";
  static final String VERTEX_CHECKS = "validate vertices and count them per partition";
  static final String VERTEX_FILES = "sort vertices, write vertex files and the id map";
  static final String EDGE_FILES = "sort edges by destination and write csr files";
  static final String HELD_OUT = "write the val and test edges and their negatives";
  static final String ENCODE = "encode features";
  static final String COUNT = "count the input rows for the plan";
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PrepareJob.class);
  private long phaseStart = System.nanoTime();

  private void phase(String done) {
    long now = System.nanoTime();
    LOG.info("prepare: {} in {} ms", done, (now - phaseStart) / 1_000_000);
    phaseStart = now;
  }

  private final SparkSession spark;
  private final FanoutConf conf;
  private final Dataset<Row> vertexFrame;
  private final Dataset<Row> edgeFrame;
  private JobSteps steps;
  private EdgeSplitPlan edgeSplit;
  private Dataset<Row> heldOutInput;
  private Dataset<Row> heldOutIds;

  /** True once the disks were checked (or --skip-space-check). */
  private boolean spaceChecked;

  public PrepareJob(
      SparkSession spark, FanoutConf conf, Dataset<Row> vertices, Dataset<Row> edges) {
    this.spark = spark;
    this.conf = conf;
    this.vertexFrame = vertices;
    this.edgeFrame = edges;
  }

  public PrepareResult run() {
    long start = System.nanoTime();
    for (OptionDef<?> d : PrepareOptions.ALL) {
      conf.get(d); // parse every option now: a bad value fails before any work
    }
    QuantizeOptions.check(conf);
    Path out = OutputPaths.check(localPath(conf.get(PrepareOptions.OUTPUT)), "--output");
    boolean overwrite = conf.get(PrepareOptions.OVERWRITE);
    int requestedPartitions = conf.get(PrepareOptions.PARTITIONS);
    if (requestedPartitions < 0) {
      throw new FanoutConfigException("--partitions must be >= 0, got " + requestedPartitions);
    }
    if (graphPartitioner()) {
      VertexPartitioners.graph(
          conf.get(PrepareOptions.PARTITIONER), conf.get(PrepareOptions.PARTITION_COARSE_VERTICES));
    } else {
      VertexPartitioners.byName(conf.get(PrepareOptions.PARTITIONER));
    }
    edgeSplit = EdgeSplitPlan.of(conf);
    boolean dryRun = conf.get(PrepareOptions.DRY_RUN);
    // a dry run over DataFrames reads no schema and starts no step (only the row count's jobs)
    steps =
        dryRun && vertexFrame != null
            ? null
            : new JobSteps(spark, "prepare", dryRun ? List.of(READ) : steps(requestedPartitions));
    InputTables in =
        vertexFrame != null
            ? InputTables.fromDataFrames(vertexFrame, edgeFrame)
            : steps.call(READ, () -> InputTables.fromPaths(spark, conf));
    if (dryRun) {
      NormalizedTables t = new NormalizedTables(in, conf);
      requireTaskLookupIfAsked(t, 0);
      InputStats s = footerStats(in);
      if (s == null) {
        s = JobLabels.call(spark, "prepare", COUNT, 1, 1, () -> InputStats.counted(t));
      }
      PreparePlan p = plan(s, t, out, requestedPartitions);
      return new PrepareResult(spark, out, null, false, secondsSince(start), p);
    }
    Map<String, String> recorded = conf.resolvedExcept(PrepareOptions.NOT_RECORDED);
    if (conf.get(PrepareOptions.WEIGHT_COLUMN).isEmpty()) {
      // unweighted stores record what they did before the option existed, so they still match
      recorded.remove(PrepareOptions.WEIGHT_COLUMN.name());
    }
    if (conf.get(PrepareOptions.EDGE_SPLIT_COLUMN).isEmpty()) {
      // stores split by fractions record what they did before the option existed
      recorded.remove(PrepareOptions.EDGE_SPLIT_COLUMN.name());
    }
    if (edgeSplit == null) {
      // stores without an edge split record what they did before the options existed
      for (OptionDef<?> d : PrepareOptions.EDGE_SPLIT_OPTIONS) {
        recorded.remove(d.name());
      }
    }
    QuantizeOptions.pruneRecorded(recorded, conf);
    if (!graphPartitioner()) {
      for (OptionDef<?> d : PrepareOptions.GRAPH_PARTITIONER_ONLY) {
        recorded.remove(d.name());
      }
    }
    OutputCommit.Plan plan =
        StoreOutput.COMMIT.plan(
            out,
            StoreOutput.request(in.fingerprint, recorded),
            StoreOutput.describe(in.fingerprint, recorded),
            overwrite);
    if (plan == OutputCommit.Plan.SKIP) {
      return new PrepareResult(spark, out, StoreManifest.read(out), true, secondsSince(start));
    }
    NormalizedTables t = new NormalizedTables(in, conf);
    requireTaskLookupIfAsked(t, 0);
    spaceChecked = conf.get(PrepareOptions.SKIP_SPACE_CHECK);
    if (!spaceChecked) {
      InputStats s = footerStats(in);
      if (s != null) { // else checked once validation has counted the rows, before any write
        SpaceCheck.require(plan(s, t, out, requestedPartitions));
        spaceChecked = true;
      }
    }
    OutputCommit.Run run = StoreOutput.COMMIT.begin(out);
    Path staging = run.dir();
    try {
      StoreManifest m = build(in, t, staging, requestedPartitions);
      m.inputFingerprint = in.fingerprint;
      m.options = recorded;
      PartFiles.removeAttemptLeftovers(staging);
      m.files = StoreOutput.files(staging);
      if (!StoreOutput.COMMIT.publish(run, m, overwrite)) { // an identical run published first
        return new PrepareResult(spark, out, StoreManifest.read(out), true, secondsSince(start));
      }
      return new PrepareResult(spark, out, m, false, secondsSince(start));
    } catch (Exception e) { // Spark throws the checked SparkException undeclared
      StoreOutput.COMMIT.abort(run);
      throw SparkErrors.unwrap(e);
    }
  }

  /** The steps of this run that start Spark jobs, in the order they run. */
  private List<String> steps(int requestedPartitions) {
    List<String> s = new ArrayList<>();
    if (vertexFrame == null) {
      s.add(READ);
    }
    s.add(EDGE_CHECKS);
    if (requestedPartitions == 0
        || graphPartitioner()
        || VertexPartitioners.byName(conf.get(PrepareOptions.PARTITIONER)).scansVertices()) {
      s.add(ASSIGN);
    }
    s.addAll(List.of(VERTEX_CHECKS, VERTEX_FILES, EDGE_FILES));
    if (!conf.get(QuantizeOptions.FEATURE_ENCODING).equals("f32")) {
      s.add(ENCODE);
    }
    if (edgeSplit != null) {
      s.add(HELD_OUT);
    }
    return s;
  }

  private StoreManifest build(InputTables in, NormalizedTables t, Path staging, int requested) {
    // 1. edge checks are cheap: run them first
    long edgeRows =
        steps.call(
            EDGE_CHECKS,
            () -> {
              if (t.nullCheckedEndpoints != null) {
                long rows = InputStats.rowsWithoutNulls(in.edges, t.nullCheckedEndpoints);
                if (rows >= 0) {
                  LOG.info(
                      "prepare: edge checks passed from the Parquet footers of {}: {} edges, no"
                          + " null endpoint",
                      in.edgeSource,
                      rows);
                  return rows;
                }
              }
              long rows = runChecks(in.edgeSource, t.edges, t.edgeChecks, t.edgeSample);
              if (t.edgeSplitColumn != null) {
                EdgeSplitColumn.checkPairsAgree(
                    t.edges, in.edgeSource, t.edgeSplitColumn, conf.get(PrepareOptions.UNDIRECTED));
              }
              return rows;
            });
    phase("edge checks");

    Assignment a =
        steps.has(ASSIGN) ? steps.call(ASSIGN, () -> assign(t, requested)) : assign(t, requested);
    int parts = a.parts;
    Dataset<Row> vertices =
        a.table == null
            ? t.vertices.withColumn(PART, a.column)
            : t.vertices
                .join(a.table, col(NormalizedTables.ID).equalTo(a.table.col("_aid")), "left")
                .drop("_aid");

    // 2. vertex checks and per-partition statistics in one aggregation
    VertexStats vs = steps.call(VERTEX_CHECKS, () -> vertexStats(in, t, vertices, parts));
    phase("vertex checks and counts");
    long[] firsts = new long[parts + 1];
    for (int p = 0; p < parts; p++) {
      firsts[p + 1] = firsts[p] + vs.counts[p];
    }
    long numVertices = firsts[parts];
    if (numVertices > Integer.MAX_VALUE) {
      throw new InvalidInputException(
          in.vertexSource + ": " + numVertices + " vertices; dense ids are int32, at most 2^31-1");
    }

    if (!spaceChecked) {
      InputStats s = new InputStats(numVertices, edgeRows, vs.dim, 8, InputStats.VALIDATED);
      SpaceCheck.require(plan(s, t, staging.getParent(), parts));
      spaceChecked = true;
    }

    // 3. vertices: nodes/ and features/ part files, the id map, and (--id-lookup task) the id
    // rank tables the csr tasks look endpoints up in
    long largest = 0;
    for (long c : vs.counts) {
      largest = Math.max(largest, c);
    }
    boolean taskLookup = usesTaskLookup(t, largest);
    String stagingDir = staging.toAbsolutePath().toString();
    List<Column> vcols =
        new ArrayList<>(
            List.of(
                col(PART),
                col(NormalizedTables.ID),
                col(NormalizedTables.LABEL),
                col(NormalizedTables.SPLIT)));
    if (vs.dim > 0) {
      vcols.add(col(NormalizedTables.FEAT));
    }
    Dataset<Row> sortedVertices =
        Routing.byPartition(
            vertices.select(vcols.toArray(new Column[0])), PART, parts, NormalizedTables.ID);
    VertexPartTask task =
        new VertexPartTask(
            stagingDir,
            firsts,
            vs.counts,
            vs.dim,
            in.vertexSource,
            conf.get(PrepareOptions.ID_COLUMN),
            t.idTypeName(),
            graphPartitioner(),
            taskLookup);
    List<Row> wrote =
        steps.call(
            VERTEX_FILES,
            () ->
                sortedVertices.queryExecution().toRdd().toJavaRDD().mapPartitions(task).collect());
    for (Row r : wrote) {
      if (r.getLong(1) != vs.counts[r.getInt(0)]) {
        throw new IllegalStateException(
            "partition "
                + r.getInt(0)
                + " wrote "
                + r.getLong(1)
                + " vertices, counted "
                + vs.counts[r.getInt(0)]);
      }
    }
    phase("vertex files and id map");

    // 4. edges: csr/ part files
    List<Row> meta =
        steps.call(
            EDGE_FILES,
            () ->
                taskLookup
                    ? writeEdgesLookingUpIds(t, stagingDir, firsts, vs.counts, parts)
                    : writeEdges(t, staging, stagingDir, firsts, vs.counts, parts));
    if (taskLookup) {
      try {
        FileTrees.deleteRecursively(staging.resolve(EndpointLookup.DIR));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("cannot remove the id rank tables", e);
      }
    }
    phase("csr files");
    long dangling = 0;
    String danglingSample = null;
    long[] edgesPerPart = new long[parts];
    boolean[] written = new boolean[parts];
    long degMin = Long.MAX_VALUE;
    long degMax = 0;
    for (Row r : meta) {
      int p = r.getInt(0);
      if (p < 0) {
        dangling += r.getLong(4);
        if (danglingSample == null) {
          danglingSample = r.getString(5);
        }
        continue;
      }
      written[p] = true;
      edgesPerPart[p] = r.getLong(1);
      if (vs.counts[p] > 0) {
        degMin = Math.min(degMin, r.getLong(2));
        degMax = Math.max(degMax, r.getLong(3));
      }
    }
    if (dangling > 0 && conf.get(PrepareOptions.DANGLING).equals("error")) {
      throw new InvalidInputException(
          in.edgeSource
              + ": columns '"
              + conf.get(PrepareOptions.SRC_COLUMN)
              + "'/'"
              + conf.get(PrepareOptions.DST_COLUMN)
              + "': "
              + dangling
              + " edge(s) with an endpoint that is not a vertex id, e.g. edge "
              + danglingSample
              + "; expected every endpoint in the vertex table (--dangling drop drops them)");
    }

    // 5. partitions no task wrote (no vertices, or no edges): write them here, they are empty
    for (int p = 0; p < parts; p++) {
      long n = vs.counts[p];
      if (!written[p]) {
        try (CsrFileWriter w =
            new CsrFileWriter(staging.resolve(StoreLayout.csrFile(p)), p, firsts[p], n)) {
          for (long i = 0; i < n; i++) {
            w.endRow();
          }
          w.finish();
        }
        if (t.weighted) {
          try (WeightFileWriter w =
              new WeightFileWriter(staging.resolve(StoreLayout.weightsFile(p)), p, firsts[p], n)) {
            w.finish();
          }
        }
        if (n > 0) {
          degMin = 0;
        }
      }
      if (n == 0) {
        try (NodesFileWriter w =
            new NodesFileWriter(staging.resolve(StoreLayout.nodesFile(p)), p, firsts[p], 0)) {
          w.finish();
        }
        if (vs.dim > 0) {
          try (FeatureFileWriter w =
              new FeatureFileWriter(
                  staging.resolve(StoreLayout.featuresFile(p)),
                  firsts[p],
                  0,
                  vs.dim,
                  StoreLayout.ENCODING_F32)) {
            w.finish();
          }
        }
      }
    }

    // 6. --feature-encoding: statistics or codebooks from the f32 files, then each part re-encoded
    String encoding = StoreLayout.encodingName(StoreLayout.ENCODING_F32);
    if (steps.has(ENCODE)) {
      encoding = conf.get(QuantizeOptions.FEATURE_ENCODING);
      if (vs.dim == 0) {
        throw new InvalidInputException(
            in.vertexSource
                + ": --feature-encoding "
                + encoding
                + " needs features, but the vertex table has no '"
                + conf.get(PrepareOptions.FEATURES_COLUMN)
                + "' column; leave --feature-encoding out or name the column with"
                + " --features-column");
      }
      FeatureQuantizer.Request q = FeatureQuantizer.request(conf, vs.dim);
      steps.run(
          ENCODE, () -> new FeatureQuantizer(spark).quantize(staging, staging, firsts, vs.dim, q));
      phase("feature encoding");
    }

    StoreManifest m = new StoreManifest();
    if (edgeSplit != null) {
      m.edgeSplit =
          steps.call(
              HELD_OUT,
              () ->
                  edgeSplit.write(
                      heldOutInput,
                      heldOutIds,
                      numVertices,
                      conf.get(PrepareOptions.UNDIRECTED),
                      staging,
                      t.idTypeName()));
      phase("held-out edges");
    }
    m.vertices = numVertices;
    m.partitions = parts;
    long edges = 0;
    for (int p = 0; p < parts; p++) {
      m.partitionTable.add(
          new StoreManifest.Partition(p, firsts[p], vs.counts[p], edgesPerPart[p]));
      edges += edgesPerPart[p];
    }
    m.edges = edges;
    m.featureDim = vs.dim;
    m.featureEncoding = encoding;
    m.weighted = t.weighted;
    m.classes = vs.maxLabel + 1;
    m.splitCounts.put("train", vs.splits[StoreLayout.SPLIT_TRAIN]);
    m.splitCounts.put("val", vs.splits[StoreLayout.SPLIT_VAL]);
    m.splitCounts.put("test", vs.splits[StoreLayout.SPLIT_TEST]);
    m.splitCounts.put("none", vs.splits[StoreLayout.SPLIT_NONE]);
    m.degree =
        new StoreManifest.Degree(
            numVertices == 0 ? 0 : degMin,
            degMax,
            numVertices == 0 ? 0 : round((double) edges / numVertices));
    m.idType = t.idTypeName();
    m.droppedDanglingEdges = dangling;
    return m;
  }

  private List<Row> writeEdges(
      NormalizedTables t,
      Path staging,
      String stagingDir,
      long[] firsts,
      long[] counts,
      int parts) {
    long[] starts = firsts.clone();
    UserDefinedFunction partOf =
        udf(
            (UDF1<Integer, Integer>)
                d -> {
                  if (d == null) {
                    return -1;
                  }
                  int lo = 0;
                  int hi = starts.length - 2;
                  while (lo < hi) {
                    int mid = (lo + hi + 1) >>> 1;
                    if (starts[mid] <= d) {
                      lo = mid;
                    } else {
                      hi = mid - 1;
                    }
                  }
                  return lo;
                },
            DataTypes.IntegerType);
    Dataset<Row> idmap =
        spark.read().parquet(staging.resolve(StoreLayout.IDMAP_DIR).toUri().toString());
    Dataset<Row> ids =
        idmap.select(col("id"), col("dense_id"), partOf.apply(col("dense_id")).as("p"));
    if (firsts[parts] <= conf.get(PrepareOptions.BROADCAST_VERTICES)) { // 0: Spark decides
      ids = org.apache.spark.sql.functions.broadcast(ids);
    } else if (!broadcastable(firsts[parts])) {
      // A shuffled hash join builds a hash table of one id-map partition per task and streams the
      // edges through it: unlike a sort-merge join it does not sort the edges by each endpoint,
      // and the edges are sorted by destination once, below, whatever order the joins leave.
      ids = ids.hint("shuffle_hash");
    }
    Dataset<Row> s =
        ids.select(col("id").as("_sid"), col("dense_id").as("_sd"), col("p").as("_sp"));
    Dataset<Row> d =
        ids.select(col("id").as("_did"), col("dense_id").as("_dd"), col("p").as("_dp"));
    Column weight = t.weighted ? col(NormalizedTables.WEIGHT) : lit(null).cast("float");
    Dataset<Row> e =
        t.edges
            .select(
                col(NormalizedTables.SRC),
                col(NormalizedTables.DST),
                weight.as(WEIGHT),
                t.edgeSplitColumn != null
                    ? col(EdgeSplitColumn.CODE)
                    : lit(null).cast("int").as(EdgeSplitColumn.CODE))
            .join(s, col(NormalizedTables.SRC).equalTo(col("_sid")), "left")
            .join(d, col(NormalizedTables.DST).equalTo(col("_did")), "left");
    Column dangling = col("_sd").isNull().or(col("_dd").isNull());
    Column loop = col("_sd").equalTo(col("_dd"));
    if (conf.get(PrepareOptions.SELF_LOOPS).equals("drop")) {
      e = e.where(dangling.or(loop.unary_$bang()));
    }
    if (edgeSplit != null) {
      // val and test edges leave the graph; dangling ones stay to be reported
      e =
          e.withColumn(
              EdgeSplitPlan.CODE,
              edgeSplit.code(
                  col(NormalizedTables.SRC),
                  col(NormalizedTables.DST),
                  loop,
                  conf.get(PrepareOptions.UNDIRECTED)));
      heldOutInput = e.where(dangling.unary_$bang());
      heldOutIds = ids;
      e = e.where(dangling.or(col(EdgeSplitPlan.CODE).equalTo(lit(EdgeSplitPlan.TRAIN))));
    }
    Column orig =
        when(
            dangling,
            concat_ws(
                " -> ",
                col(NormalizedTables.SRC).cast("string"),
                col(NormalizedTables.DST).cast("string")));
    Column forward =
        org.apache.spark.sql.functions.struct(
            when(dangling, lit(-1)).otherwise(col("_dp")).as(PART),
            edgeKey(dangling, col("_dd"), col("_sd")).as(KEY),
            orig.as("_orig"),
            col(WEIGHT));
    // unweighted stores shuffle and sort no weight column
    Column[] fields =
        t.weighted
            ? new Column[] {
              col("_e." + PART), col("_e." + KEY), col("_e._orig"), col("_e." + WEIGHT)
            }
            : new Column[] {col("_e." + PART), col("_e." + KEY), col("_e._orig")};
    Dataset<Row> all;
    if (conf.get(PrepareOptions.UNDIRECTED)) {
      // both directions from one pass over the joined edges
      Column reverse =
          when(
              dangling.unary_$bang().and(loop.unary_$bang()),
              org.apache.spark.sql.functions.struct(
                  col("_sp").as(PART),
                  edgeKey(lit(false), col("_sd"), col("_dd")).as(KEY),
                  lit(null).cast("string").as("_orig"),
                  col(WEIGHT)));
      all = bothDirections(e, forward, reverse).select(fields);
    } else {
      all = e.select(forward.as("_e")).select(fields);
    }
    // One long sort key, (destination << 32 | source), orders each partition's edges. Either the
    // csr-writing task counting-sorts the keys it receives (no Spark sort of the rows), or Spark
    // radix-sorts the rows by it (partitions own ascending dense-id ranges, so that also groups the
    // rows by partition). Weighted stores sort repeated edges by weight too, in Spark, so their
    // weights (and --dedupe's sums) do not depend on the shuffle's order.
    boolean sortInTask = !t.weighted && sortsEdgesInTask(conf);
    Dataset<Row> routed =
        t.weighted
            ? Routing.byPartition(all, PART, parts, KEY, WEIGHT)
            : sortInTask
                ? Routing.shuffle(all, PART, parts)
                : Routing.byPartition(all, PART, parts, KEY);
    return writeCsr(
        routed,
        new EdgePartTask(
            stagingDir,
            firsts,
            counts,
            conf.get(PrepareOptions.DEDUPE),
            t.weighted ? conf.get(PrepareOptions.WEIGHT_COLUMN) : null,
            sortInTask,
            0,
            null,
            false));
  }

  /**
   * Column {@code _e} holding {@code forward}, then {@code reverse} unless it is null, of each row
   * of {@code edges}: one pass over the edges for both directions.
   */
  private static Dataset<Row> bothDirections(Dataset<Row> edges, Column forward, Column reverse) {
    return edges
        .select(
            org.apache
                .spark
                .sql
                .functions
                .explode(org.apache.spark.sql.functions.array(forward, reverse))
                .as("_e"))
        .where(col("_e").isNotNull());
  }

  /** Runs {@code task} over the rows of {@code routed}: the csr files, and their metadata rows. */
  private static List<Row> writeCsr(Dataset<Row> routed, EdgePartTask task) {
    if (LOG.isDebugEnabled()) {
      LOG.debug("prepare: edge plan\n{}", routed.queryExecution().executedPlan().treeString());
    }
    return routed.queryExecution().toRdd().toJavaRDD().mapPartitions(task).collect();
  }

  /**
   * The edge stage of {@code --id-lookup task}: the edges in original ids, both directions of each
   * when undirected, packed into {@link EdgeBlocks} for the partition of their destination (the
   * hash partitioner's own function) and shuffled once, a block a record, to the {@link
   * EdgePartTask} that finds the dense ids in the {@link io.fanout.store.IdRankTable}s of the
   * vertex stage. No join, no id-map read, no per-edge shuffle record.
   */
  private List<Row> writeEdgesLookingUpIds(
      NormalizedTables t, String stagingDir, long[] firsts, long[] counts, int parts) {
    boolean longIds = t.idTypeName().equals("long");
    EdgePartTask task =
        new EdgePartTask(
            stagingDir,
            firsts,
            counts,
            conf.get(PrepareOptions.DEDUPE),
            null,
            true,
            0,
            new EndpointLookup(stagingDir, firsts, longIds),
            conf.get(PrepareOptions.SELF_LOOPS).equals("drop"));
    return t.edges
        .select(col(NormalizedTables.SRC), col(NormalizedTables.DST))
        .queryExecution()
        .toRdd()
        .toJavaRDD()
        .mapPartitionsToPair(new EdgeRouter(parts, longIds, conf.get(PrepareOptions.UNDIRECTED)))
        .partitionBy(new EdgeRouter.ByPartition(parts))
        .values()
        .mapPartitions(task.onBlocks())
        .collect();
  }

  /**
   * Why {@code --id-lookup task} cannot build this store, or null when it can.
   *
   * @param largestPartition the most vertices of one partition, 0 when not known yet
   */
  private String taskLookupObstacle(NormalizedTables t, long largestPartition) {
    String partitioner = conf.get(PrepareOptions.PARTITIONER);
    if (!partitioner.equals(HashPartitioner.NAME)) {
      return "--partitioner "
          + partitioner
          + " (the csr tasks find an endpoint's partition by hashing its id: hash only)";
    }
    if (t.idTypeName().equals("string")) {
      return "string vertex ids (the tables hold int or long ids)";
    }
    if (t.weighted) {
      return "weighted edges (Spark sorts them with their weights)";
    }
    if (!sortsEdgesInTask(conf)) {
      return "--edge-sort sql (Spark sorts the rows by their dense ids)";
    }
    if (edgeSplit != null) {
      return "held-out val/test edges (they are written from the joined edges)";
    }
    if (largestPartition > IdRankTable.MAX_IDS) {
      return "a partition of "
          + largestPartition
          + " vertices (a table holds at most "
          + IdRankTable.MAX_IDS
          + "; raise --partitions)";
    }
    return null;
  }

  /** Fails before any work when {@code --id-lookup task} was asked for and cannot apply. */
  private void requireTaskLookupIfAsked(NormalizedTables t, long largestPartition) {
    if (conf.get(PrepareOptions.ID_LOOKUP).equals("task")) {
      String why = taskLookupObstacle(t, largestPartition);
      if (why != null) {
        throw taskLookupRefused(why);
      }
    }
  }

  private static FanoutConfigException taskLookupRefused(String why) {
    return new FanoutConfigException(
        "--id-lookup task does not apply to "
            + why
            + "; use --id-lookup auto (task where it applies) or sql");
  }

  /**
   * Whether this run looks endpoints up in the csr tasks ({@code --id-lookup}); an explicit {@code
   * task} that cannot apply fails, {@code auto} logs why it joins.
   */
  private boolean usesTaskLookup(NormalizedTables t, long largestPartition) {
    String mode = conf.get(PrepareOptions.ID_LOOKUP);
    if (mode.equals("sql")) {
      return false;
    }
    String why = taskLookupObstacle(t, largestPartition);
    if (why == null) {
      return true;
    }
    if (mode.equals("task")) {
      throw taskLookupRefused(why);
    }
    LOG.info("prepare: --id-lookup auto joins the edges with the id map: {}", why);
    return false;
  }

  /** Whether unweighted edges are sorted by the csr-writing tasks ({@code --edge-sort task}). */
  static boolean sortsEdgesInTask(FanoutConf conf) {
    return conf.get(PrepareOptions.EDGE_SORT).equals("task");
  }

  /**
   * Whether Spark may broadcast an id map of {@code vertices} rows on its own: its size estimate
   * (about 16 bytes a row of {@code id, dense_id, p}) is under {@code
   * spark.sql.autoBroadcastJoinThreshold}. Larger maps are joined by shuffled hash joins.
   */
  private boolean broadcastable(long vertices) {
    long threshold = spark.sessionState().conf().autoBroadcastJoinThreshold();
    return threshold >= 0 && vertices <= threshold / 16;
  }

  /**
   * The number of partitions and every vertex's partition: a column of the vertex table, or a table
   * {@code (_aid, _part)} to join with it.
   */
  private record Assignment(int parts, Column column, Dataset<Row> table) {}

  private boolean graphPartitioner() {
    return VertexPartitioners.readsEdges(conf.get(PrepareOptions.PARTITIONER));
  }

  private Assignment assign(NormalizedTables t, int requested) {
    int parts = requested;
    if (parts == 0) {
      long v = t.vertices.count();
      parts =
          (int)
              Math.max(
                  1,
                  (v + PrepareOptions.AUTO_VERTICES_PER_PARTITION - 1)
                      / PrepareOptions.AUTO_VERTICES_PER_PARTITION);
    }
    String name = conf.get(PrepareOptions.PARTITIONER);
    if (graphPartitioner()) {
      Dataset<Row> table =
          VertexPartitioners.graph(name, conf.get(PrepareOptions.PARTITION_COARSE_VERTICES))
              .assign(
                  t.vertices.select(col(NormalizedTables.ID).as("id")).where(col("id").isNotNull()),
                  t.edges.select(
                      col(NormalizedTables.SRC).as("src"), col(NormalizedTables.DST).as("dst")),
                  parts,
                  conf.get(PrepareOptions.PARTITION_SEED));
      return new Assignment(parts, null, table.select(col("id").as("_aid"), col("part").as(PART)));
    }
    return new Assignment(
        parts,
        VertexPartitioners.byName(name).assign(t.vertices, col(NormalizedTables.ID), parts),
        null);
  }

  /** {@code dst << 32 | src} for an edge src -> dst in dense ids; -1 for dangling edges. */
  private static Column edgeKey(Column dangling, Column dst, Column src) {
    return when(dangling, lit(-1L))
        .otherwise(
            org.apache
                .spark
                .sql
                .functions
                .shiftleft(dst.cast("long"), 32)
                .bitwiseOR(src.cast("long")));
  }

  /** Per-partition vertex counts and table-wide statistics. */
  private static final class VertexStats {
    long[] counts;
    int dim;
    int maxLabel = -1;
    long[] splits = new long[4];
  }

  private VertexStats vertexStats(
      InputTables in, NormalizedTables t, Dataset<Row> vertices, int parts) {
    List<Column> aggs = new ArrayList<>();
    aggs.add(count(lit(1)).as("n"));
    aggs.add(max(col(NormalizedTables.LABEL)).as("max_label"));
    for (int s = 0; s < 4; s++) {
      aggs.add(sum(when(col(NormalizedTables.SPLIT).equalTo(lit((byte) s)), 1L).otherwise(0L)));
    }
    if (t.hasFeatures) {
      aggs.add(min(size(col(NormalizedTables.FEAT))).as("dmin"));
      aggs.add(max(size(col(NormalizedTables.FEAT))).as("dmax"));
    }
    int checksAt = aggs.size();
    for (Check c : t.vertexChecks) {
      aggs.add(c.counter());
    }
    List<Row> rows =
        vertices
            .groupBy(col(PART))
            .agg(aggs.get(0), aggs.subList(1, aggs.size()).toArray(new Column[0]))
            .collectAsList();
    VertexStats vs = new VertexStats();
    vs.counts = new long[parts];
    long[] failures = new long[t.vertexChecks.size()];
    int dmin = Integer.MAX_VALUE;
    int dmax = Integer.MIN_VALUE;
    long total = 0;
    for (Row r : rows) {
      int p = r.isNullAt(0) ? -1 : r.getInt(0);
      long n = r.getLong(1);
      total += n;
      for (int i = 0; i < failures.length; i++) {
        failures[i] += r.getLong(1 + checksAt + i);
      }
      if (p < 0 || p >= parts) {
        continue; // null ids: reported by the checks below
      }
      vs.counts[p] = n;
      if (!r.isNullAt(2)) {
        vs.maxLabel = Math.max(vs.maxLabel, r.getInt(2));
      }
      for (int s = 0; s < 4; s++) {
        vs.splits[s] += r.getLong(3 + s);
      }
      if (t.hasFeatures && !r.isNullAt(7)) {
        dmin = Math.min(dmin, r.getInt(7));
        dmax = Math.max(dmax, r.getInt(8));
      }
    }
    if (total == 0) {
      throw new InvalidInputException(
          in.vertexSource + ": the vertex table is empty; expected at least one vertex");
    }
    for (int i = 0; i < failures.length; i++) {
      if (failures[i] > 0) {
        throw t.vertexChecks.get(i).error(in.vertexSource, t.vertices, t.vertexSample, failures[i]);
      }
    }
    if (t.hasFeatures && dmin != dmax) {
      String featCol = conf.get(PrepareOptions.FEATURES_COLUMN);
      Check c =
          new Check(
              featCol,
              "feature arrays of differing length (lengths from " + dmin + " to " + dmax + ")",
              "every feature array of length " + dmax,
              size(col(NormalizedTables.FEAT)).notEqual(dmax));
      List<Column> sample = new ArrayList<>(t.vertexSample);
      sample.add(size(col(NormalizedTables.FEAT)).as("feature_length"));
      long bad = t.vertices.where(c.bad).count();
      throw c.error(in.vertexSource, t.vertices, sample, bad);
    }
    vs.dim = t.hasFeatures ? Math.max(dmax, 0) : 0;
    return vs;
  }

  /** Runs the checks in one aggregation, which also counts the rows; returns the count. */
  private static long runChecks(
      String source, Dataset<Row> table, List<Check> checks, List<Column> sample) {
    Column[] aggs = new Column[checks.size()];
    for (int i = 0; i < aggs.length; i++) {
      aggs[i] = checks.get(i).counter();
    }
    Row r = table.agg(count(lit(1)), aggs).first();
    for (int i = 0; i < aggs.length; i++) {
      long n = r.isNullAt(i + 1) ? 0 : r.getLong(i + 1);
      if (n > 0) {
        throw checks.get(i).error(source, table, sample, n);
      }
    }
    return r.getLong(0);
  }

  /** The inputs' statistics from their Parquet footers, or null (see {@link InputStats}). */
  private InputStats footerStats(InputTables in) {
    return InputStats.fromFooters(
        in, conf.get(PrepareOptions.FEATURES_COLUMN), conf.get(PrepareOptions.ID_COLUMN));
  }

  /** The plan for {@code parts} partitions (0: the automatic count), with its disks probed. */
  private PreparePlan plan(InputStats s, NormalizedTables t, Path out, int parts) {
    int k =
        parts > 0
            ? parts
            : (int)
                Math.max(
                    1,
                    (s.vertices + PrepareOptions.AUTO_VERTICES_PER_PARTITION - 1)
                        / PrepareOptions.AUTO_VERTICES_PER_PARTITION);
    PreparePlanner.Estimate e =
        PreparePlanner.estimate(
            new PreparePlanner.Context(
                s,
                conf,
                k,
                t.weighted,
                t.idTypeName().equals("string"),
                graphPartitioner(),
                !conf.get(PrepareOptions.ID_LOOKUP).equals("sql")
                    && taskLookupObstacle(t, PreparePlanner.share(s.vertices, k, 0)) == null,
                spark.sessionState().conf().autoBroadcastJoinThreshold(),
                spark.sessionState().conf().numShufflePartitions(),
                ShuffleCodec.of(spark.sparkContext().getConf())));
    Map<String, Object> inputs = new java.util.LinkedHashMap<>();
    inputs.put("source", s.source);
    inputs.put("vertices", s.vertices);
    inputs.put("edges", s.edges);
    inputs.put("feature_dim", s.featureDim);
    return new PreparePlan(
        inputs,
        conf.get(PrepareOptions.PARTITIONER),
        e.partitions(),
        e.store(),
        e.shuffle(),
        e.stages(),
        SpaceCheck.disks(spark, out, e.storeBytes(), e.shuffleBytes()),
        e.notes());
  }

  private static double secondsSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  private static double round(double x) {
    return Math.round(x * 1e6) / 1e6;
  }

  static Path localPath(String output) {
    String p = output.startsWith("file:") ? java.net.URI.create(output).getPath() : output;
    if (p.contains("://")) {
      throw new FanoutConfigException(
          "--output must be a local or mounted path visible to the driver and executors, got "
              + output);
    }
    return Paths.get(p).toAbsolutePath().normalize();
  }
}
