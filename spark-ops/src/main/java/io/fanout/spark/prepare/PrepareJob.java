package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.col;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.EdgeSort;
import io.fanout.conf.options.IdLookup;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.conf.options.QuantizeOptions;
import io.fanout.graph.PartitionRelayout;
import io.fanout.spark.internal.JobLabels;
import io.fanout.spark.internal.JobSteps;
import io.fanout.spark.internal.LocalTablePaths;
import io.fanout.spark.partition.VertexPartitioners;
import io.fanout.store.DisjointPaths;
import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.FileTrees;
import io.fanout.store.InvalidInputException;
import io.fanout.store.OutputCommit;
import io.fanout.store.OutputPaths;
import io.fanout.store.StoreFeatureEncoding;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.store.StoreOutput;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

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
  /** The column holding a vertex's or an edge's partition in the stages' frames. */
  static final String PART = "_part";

  // The steps whose Spark jobs carry the description "fanout prepare: <step> (i/n)", in order.
  static final String READ = "read the input schemas";
  static final String EDGE_CHECKS = "validate edges";
  static final String ASSIGN = "assign vertices to partitions";
  static final String VERTEX_CHECKS = "validate vertices and count them per partition";
  static final String VERTEX_FILES = "sort vertices, write vertex files and the id map";
  static final String EDGE_FILES = "sort edges by destination and write csr files";
  static final String HELD_OUT = "write the val and test edges and their negatives";
  static final String ENCODE = "encode features";
  static final String LAYOUT = "lay out feature rows";
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
  private TaskIdLookup idLookup;

  /** True once the disks were checked (or --skip-space-check). */
  private boolean spaceChecked;

  public PrepareJob(
      SparkSession spark, FanoutConf conf, Dataset<Row> vertices, Dataset<Row> edges) {
    this.spark = spark;
    this.conf = conf;
    this.vertexFrame = vertices;
    this.edgeFrame = edges;
  }

  public PrepareOutcome run() {
    long start = System.nanoTime();
    for (OptionDef<?> d : PrepareOptions.ALL) {
      conf.get(d); // parse every option now: a bad value fails before any work
    }
    if (conf.get(PrepareOptions.FEATURE_ENCODING).namesTypes()) {
      throw new FanoutConfigException(
          "--feature-encoding "
              + conf.raw(PrepareOptions.FEATURE_ENCODING)
              + " names vertex types, but this graph is one vertex table; give one encoding");
    }
    QuantizeOptions.check(conf);
    Path out = OutputPaths.check(localPath(conf.get(PrepareOptions.OUTPUT)), "--output");
    refuseOutputOverInputs(out);
    boolean overwrite = conf.get(PrepareOptions.OVERWRITE);
    int requestedPartitions = conf.get(PrepareOptions.PARTITIONS);
    if (requestedPartitions < 0) {
      throw new FanoutConfigException("--partitions must be >= 0, got " + requestedPartitions);
    }
    if (graphPartitioner()) {
      VertexPartitioners.graph(
          conf.get(PrepareOptions.PARTITIONER), conf.get(PrepareOptions.PARTITION_COARSE_VERTICES));
    } else {
      VertexPartitioners.of(conf.get(PrepareOptions.PARTITIONER));
    }
    if (!conf.get(PrepareOptions.LINK_RELATION).isBlank()) {
      throw new FanoutConfigException(
          "--link-relation names the split relation of a typed graph; a graph of one vertex table"
              + " and one edge table splits its edges with --task link alone");
    }
    edgeSplit = EdgeSplitPlan.of(conf);
    idLookup = new TaskIdLookup(conf, edgeSplit);
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
      idLookup.requireIfAsked(t, 0);
      InputStats s = footerStats(in);
      if (s == null) {
        s = JobLabels.call(spark, "prepare", COUNT, 1, 1, () -> InputStats.counted(t));
      }
      PreparePlan p = plan(s, t, out, requestedPartitions);
      return new PrepareOutcome(out, null, false, secondsSince(start), p);
    }
    Map<String, String> recorded = conf.resolvedExcept(PrepareOptions.NOT_RECORDED);
    for (OptionDef<?> d : PrepareOptions.TYPED_ONLY) {
      recorded.remove(d.name()); // one-table stores record what they did before typed graphs
    }
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
    PrepareOptions.pruneRecordedLayout(recorded, conf.get(PrepareOptions.FEATURE_LAYOUT));
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
      return new PrepareOutcome(out, StoreManifest.read(out), true, secondsSince(start));
    }
    NormalizedTables t = new NormalizedTables(in, conf);
    idLookup.requireIfAsked(t, 0);
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
        return new PrepareOutcome(out, StoreManifest.read(out), true, secondsSince(start));
      }
      return new PrepareOutcome(out, m, false, secondsSince(start));
    } catch (Exception e) { // Spark throws the checked SparkException undeclared
      StoreOutput.COMMIT.abort(run);
      throw SparkErrors.unwrap(e);
    }
  }

  /** Refuses an output equal to, inside or holding the input tables' paths (or files). */
  private void refuseOutputOverInputs(Path out) {
    DisjointPaths paths = new DisjointPaths();
    if (vertexFrame != null) {
      for (Path f : LocalTablePaths.files(spark, vertexFrame)) {
        paths.input("vertices DataFrame file", f);
      }
      for (Path f : LocalTablePaths.files(spark, edgeFrame)) {
        paths.input("edges DataFrame file", f);
      }
    } else {
      paths.input("--vertices", LocalTablePaths.of(spark, conf.get(PrepareOptions.VERTICES)));
      paths.input("--edges", LocalTablePaths.of(spark, conf.get(PrepareOptions.EDGES)));
    }
    paths.output("--output", out).check();
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
        || VertexPartitioners.of(conf.get(PrepareOptions.PARTITIONER)).scansVertices()) {
      s.add(ASSIGN);
    }
    s.addAll(List.of(VERTEX_CHECKS, VERTEX_FILES, EDGE_FILES));
    if (conf.get(QuantizeOptions.FEATURE_ENCODING) != StoreFeatureEncoding.F32) {
      s.add(ENCODE);
    }
    if (conf.get(PrepareOptions.FEATURE_LAYOUT) != FeatureLayoutKind.IDENTITY) {
      s.add(LAYOUT);
    }
    if (edgeSplit != null) {
      s.add(HELD_OUT);
    }
    return s;
  }

  private StoreManifest build(InputTables in, NormalizedTables t, Path staging, int requested) {
    // 1. edge checks are cheap: run them first
    long edgeRows = steps.call(EDGE_CHECKS, () -> InputValidation.edges(conf, in, t));
    phase("edge checks");

    PartitionAssignment a =
        steps.has(ASSIGN)
            ? steps.call(ASSIGN, () -> PartitionAssignment.of(conf, t, requested))
            : PartitionAssignment.of(conf, t, requested);
    int parts = a.parts();
    Dataset<Row> vertices =
        a.table() == null
            ? t.vertices.withColumn(PART, a.column())
            : t.vertices
                .join(a.table(), col(NormalizedTables.ID).equalTo(a.table().col("_aid")), "left")
                .drop("_aid");

    // 2. vertex checks and per-partition statistics in one aggregation
    InputValidation.VertexStats vs =
        steps.call(VERTEX_CHECKS, () -> InputValidation.vertices(conf, in, t, vertices, parts));
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
    boolean taskLookup = idLookup.uses(t, largest);
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
    EdgeFileStage edgeStage = new EdgeFileStage(spark, conf, edgeSplit);
    List<Row> meta =
        steps.call(
            EDGE_FILES,
            () ->
                taskLookup
                    ? edgeStage.writeLookingUpIds(t, stagingDir, firsts, vs.counts, parts)
                    : edgeStage.writeJoiningIds(t, staging, stagingDir, firsts, vs.counts, parts));
    if (taskLookup) {
      try {
        FileTrees.deleteRecursively(staging.resolve(EndpointLookup.DIR));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException("cannot remove the id rank tables", e);
      }
    }
    phase("csr files");
    CsrReport csr = CsrReport.of(meta, vs.counts, parts);
    csr.requireNoDangling(conf, in.edgeSource);

    // 5. partitions no task wrote (no vertices, or no edges): write them here, they are empty
    if (EmptyPartitionFiles.write(
        staging, parts, firsts, vs.counts, csr.written, t.weighted, vs.dim)) {
      csr.degMin = 0;
    }

    // 6. --feature-encoding: statistics or codebooks from the f32 files, then each part re-encoded
    String encoding = StoreLayout.encodingName(StoreLayout.ENCODING_F32);
    if (steps.has(ENCODE)) {
      encoding = conf.get(QuantizeOptions.FEATURE_ENCODING).id();
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

    // 7. --feature-layout: the rows moved inside each partition's file, after any encoding (as
    // quantize does), in the order computed over the staged CSR and splits, a task per partition
    FeatureLayoutKind layout = conf.get(PrepareOptions.FEATURE_LAYOUT);
    if (steps.has(LAYOUT)) {
      if (vs.dim == 0) {
        throw new InvalidInputException(
            in.vertexSource
                + ": --feature-layout "
                + layout.id()
                + " orders feature rows, but the vertex table has no '"
                + conf.get(PrepareOptions.FEATURES_COLUMN)
                + "' column; leave --feature-layout out or name the column with"
                + " --features-column");
      }
      PartitionRelayout.Staged graph = new PartitionRelayout.Staged(vs.counts, csr.edgesPerPart);
      steps.run(LAYOUT, () -> new FeatureLayoutStage(spark).write(staging, graph, layout));
      phase("feature layout");
    }

    StoreManifest m = new StoreManifest();
    m.featureLayout = layout == FeatureLayoutKind.IDENTITY ? null : layout.id();
    if (edgeSplit != null) {
      m.edgeSplit =
          steps.call(
              HELD_OUT,
              () ->
                  edgeSplit.write(
                      edgeStage.heldOutInput(),
                      edgeStage.heldOutIds(),
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
          new StoreManifest.Partition(p, firsts[p], vs.counts[p], csr.edgesPerPart[p]));
      edges += csr.edgesPerPart[p];
    }
    m.edges = edges;
    m.featureDim = vs.dim;
    m.featureEncoding = encoding;
    m.weighted = t.weighted;
    m.classes = Math.toIntExact(vs.maxLabel + 1); // labels are at most MAX_LABEL
    m.splitCounts.put("train", vs.splits[StoreLayout.SPLIT_TRAIN]);
    m.splitCounts.put("val", vs.splits[StoreLayout.SPLIT_VAL]);
    m.splitCounts.put("test", vs.splits[StoreLayout.SPLIT_TEST]);
    m.splitCounts.put("none", vs.splits[StoreLayout.SPLIT_NONE]);
    m.degree =
        new StoreManifest.Degree(
            numVertices == 0 ? 0 : csr.degMin,
            csr.degMax,
            numVertices == 0 ? 0 : round((double) edges / numVertices));
    m.idType = t.idTypeName();
    m.droppedDanglingEdges = csr.dangling;
    return m;
  }

  /** Whether unweighted edges are sorted by the csr-writing tasks ({@code --edge-sort task}). */
  static boolean sortsEdgesInTask(FanoutConf conf) {
    return conf.get(PrepareOptions.EDGE_SORT) == EdgeSort.TASK;
  }

  private boolean graphPartitioner() {
    return conf.get(PrepareOptions.PARTITIONER).readsEdges();
  }

  /** The inputs' statistics from their Parquet footers, or null (see {@link InputStats}). */
  private InputStats footerStats(InputTables in) {
    return InputStats.fromFooters(
        in, conf.get(PrepareOptions.FEATURES_COLUMN), conf.get(PrepareOptions.ID_COLUMN));
  }

  /** The plan for {@code parts} partitions (0: the automatic count), with its disks probed. */
  private PreparePlan plan(InputStats s, NormalizedTables t, Path out, int parts) {
    int k = parts > 0 ? parts : PrepareOptions.autoPartitions(s.vertices);
    PreparePlanner.Estimate e =
        PreparePlanner.estimate(
            new PreparePlanner.Context(
                s,
                conf,
                conf.get(QuantizeOptions.FEATURE_ENCODING).id(),
                k,
                t.weighted,
                conf.get(PrepareOptions.UNDIRECTED),
                t.idTypeName().equals("string"),
                graphPartitioner(),
                conf.get(PrepareOptions.ID_LOOKUP) != IdLookup.SQL
                    && idLookup.obstacle(t, PreparePlanner.share(s.vertices, k, 0)) == null,
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
        conf.get(PrepareOptions.PARTITIONER).id(),
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
