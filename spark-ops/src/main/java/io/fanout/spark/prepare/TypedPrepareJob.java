package io.fanout.spark.prepare;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.conf.PerType;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.conf.options.QuantizeOptions;
import io.fanout.graph.TypedStagedGraph;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The {@code prepare} pipeline of a typed graph (more than one vertex type or relation; see {@code
 * docs/prepare.md}, typed graphs). Under a graph partitioner ({@code --partitioner multilevel}) the
 * vertices of all types are first partitioned together ({@link TypedGraphPartitioning}). Each
 * vertex type is written as the one-table pipeline writes its vertices, into {@code types/<type>/}
 * by type-local dense ids ({@link TypeVertexStage}); then each relation, the declared ones and
 * those {@code --add-reverse} or {@code --undirected} add ({@link ReverseRelations}), into {@code
 * relations/<relation>/} ({@link RelationEdgeStage}: a relation within one type is made symmetric
 * by {@code --undirected}; endpoints joined or looked up per {@link TypedIdLookup}). The store is
 * published with the one-table commit protocol (a rerun with the same inputs and options is
 * skipped, another is refused without {@code --overwrite}); its manifest has format {@link
 * StoreManifest#TYPED_FORMAT} with {@code types} and {@code relations}. With {@code --link-relation
 * R} the held-out edges of {@code R} leave it and its reverses and are written under {@code
 * relations/R/edgesplit/} ({@link TypedLinkSplit}). With {@code --feature-layout seed-groups} each
 * featured type's rows are then kept in first-use order from the labelled type's training seeds,
 * with {@code neighborhood} in that order regrouped by the groups of the vertices that draw them
 * ({@link TypedFeatureLayoutStage}), recorded per type. The driver sees only per-partition counts.
 */
public final class TypedPrepareJob {
  /** The step that partitions all types together with a graph partitioner. */
  static final String ASSIGN = "partition the vertices of all types over all relations";

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(TypedPrepareJob.class);

  /** The name of the layout step, then the layout's spelling. */
  static final String LAYOUT_STEP = "lay out feature rows ";

  private final SparkSession spark;
  private final FanoutConf conf;
  private final TypedTables in;

  public TypedPrepareJob(SparkSession spark, FanoutConf conf, TypedTables in) {
    this.spark = spark;
    this.conf = conf;
    this.in = in;
  }

  public PrepareOutcome run() {
    long start = System.nanoTime();
    for (OptionDef<?> d : PrepareOptions.ALL) {
      conf.get(d); // parse every option now: a bad value fails before any work
    }
    TypedOptionChecks.refuseUnbuilt(conf);
    QuantizeOptions.checkPq(conf);
    List<String> typeNames = new ArrayList<>();
    in.types.forEach(t -> typeNames.add(t.name()));
    PerType<StoreFeatureEncoding> encodings = TypedOptionChecks.encodings(conf, typeNames);
    for (TypedTables.TypeTable t : in.types) {
      if (t.featuresColumn() == null
          && encodings.byType().containsKey(t.name())
          && encodings.of(t.name()) != StoreFeatureEncoding.F32) {
        throw new InvalidInputException(
            t.source()
                + ": --feature-encoding "
                + t.name()
                + "="
                + encodings.of(t.name()).id()
                + " but the type has no features column; leave it out for this type");
      }
    }
    List<TypedTables.RelationTable> relations =
        ReverseRelations.plan(
            in.relations,
            conf.get(PrepareOptions.ADD_REVERSE),
            conf.get(PrepareOptions.UNDIRECTED));
    TypedLinkSplit linkSplit = TypedLinkSplit.of(conf, relations);
    TypedIdLookup idLookup = new TypedIdLookup(conf, in, relations, linkSplit);
    idLookup.requireIfAsked();
    boolean graphPartitioner = conf.get(PrepareOptions.PARTITIONER).readsEdges();
    if (graphPartitioner) {
      VertexPartitioners.graph(
          conf.get(PrepareOptions.PARTITIONER), conf.get(PrepareOptions.PARTITION_COARSE_VERTICES));
    }
    FeatureLayoutKind layout = conf.get(PrepareOptions.FEATURE_LAYOUT);
    String layoutTarget =
        layout == FeatureLayoutKind.IDENTITY ? null : TypedFeatureLayouts.target(in.types, layout);
    Path out = OutputPaths.check(PrepareJob.localPath(conf.get(PrepareOptions.OUTPUT)), "--output");
    refuseOutputOverInputs(out);
    boolean overwrite = conf.get(PrepareOptions.OVERWRITE);
    int requested = conf.get(PrepareOptions.PARTITIONS);
    if (requested < 0) {
      throw new io.fanout.conf.FanoutConfigException("--partitions must be >= 0, got " + requested);
    }
    Function<Boolean, PreparePlan> planner =
        footersOnly ->
            TypedPreparePlanner.plan(
                spark,
                conf,
                in,
                relations,
                encodings,
                linkSplit != null,
                idLookup,
                out,
                requested,
                footersOnly);
    if (conf.get(PrepareOptions.DRY_RUN)) {
      return new PrepareOutcome(out, null, false, secondsSince(start), planner.apply(false));
    }
    Map<String, String> recorded = recorded(encodings, linkSplit != null);
    OutputCommit.Plan plan =
        StoreOutput.COMMIT.plan(
            out,
            StoreOutput.request(in.fingerprint, recorded),
            StoreOutput.describe(in.fingerprint, recorded),
            overwrite);
    if (plan == OutputCommit.Plan.SKIP) {
      return new PrepareOutcome(out, StoreManifest.read(out), true, secondsSince(start));
    }
    if (!conf.get(PrepareOptions.SKIP_SPACE_CHECK)) {
      // from Parquet footers only: counting other inputs would read them once more
      PreparePlan p = planner.apply(true);
      if (p != null) {
        SpaceCheck.require(p);
      }
    }
    List<String> stepNames = new ArrayList<>();
    if (graphPartitioner) {
      stepNames.add(ASSIGN);
    }
    for (TypedTables.TypeTable t : in.types) {
      stepNames.add("validate and write vertex type '" + t.name() + "'");
    }
    List<Integer> relationOrder = new ArrayList<>();
    for (int i = 0; i < relations.size(); i++) {
      relationOrder.add(i);
    }
    if (linkSplit != null) {
      relationOrder = linkSplit.writeOrder(relations);
    }
    for (int i : relationOrder) {
      stepNames.add("validate and write relation '" + relations.get(i).name() + "'");
    }
    if (linkSplit != null) {
      stepNames.add("write the held-out edges of relation '" + linkSplit.relation.name() + "'");
    }
    if (layoutTarget != null) {
      stepNames.add(LAYOUT_STEP + layout.id());
    }
    JobSteps steps = new JobSteps(spark, "prepare", stepNames);
    OutputCommit.Run run = StoreOutput.COMMIT.begin(out);
    Path staging = run.dir();
    try {
      Map<String, TypeVertexStage.Result> types = new LinkedHashMap<>();
      int step = 0;
      TypedGraphPartitioning graph =
          graphPartitioner
              ? steps.call(
                  stepNames.get(step++),
                  () -> TypedGraphPartitioning.of(spark, conf, in.types, in.relations, requested))
              : null;
      for (TypedTables.TypeTable t : in.types) {
        Path dir = staging.resolve(StoreLayout.typeDir(t.name()));
        StoreFeatureEncoding enc = encodings.of(t.name());
        boolean rankTables = idLookup.rankTables(t.name());
        types.put(
            t.name(),
            steps.call(
                stepNames.get(step++),
                () ->
                    TypeVertexStage.write(spark, conf, t, requested, graph, rankTables, enc, dir)));
        LOG.info("prepare: vertex type '{}' written", t.name());
      }
      RelationEdgeStage.Result[] written = new RelationEdgeStage.Result[relations.size()];
      java.util.Set<String> checked = new java.util.HashSet<>();
      for (int i : relationOrder) {
        TypedTables.RelationTable r = relations.get(i);
        TypeVertexStage.Result src = types.get(r.srcType());
        TypeVertexStage.Result dst = types.get(r.dstType());
        Path srcDir = staging.resolve(StoreLayout.typeDir(r.srcType()));
        Path dstDir = staging.resolve(StoreLayout.typeDir(r.dstType()));
        Path dir = staging.resolve(StoreLayout.relationDir(r.name()));
        boolean taskLookup = idLookup.uses(r, src, dst);
        boolean originalChecked = r.added() && checked.contains(r.reverseOf());
        written[i] =
            steps.call(
                stepNames.get(step++),
                () ->
                    RelationEdgeStage.write(
                        spark,
                        conf,
                        r,
                        src,
                        srcDir,
                        dst,
                        dstDir,
                        dir,
                        linkSplit,
                        taskLookup,
                        originalChecked));
        checked.add(r.name());
        LOG.info("prepare: relation '{}' written", r.name());
      }
      for (TypedTables.TypeTable t : in.types) {
        // the id rank tables of --id-lookup task live in the staging folder only
        FileTrees.deleteRecursively(
            staging.resolve(StoreLayout.typeDir(t.name())).resolve(EndpointLookup.DIR));
      }
      StoreManifest.EdgeSplit edgeSplit = null;
      if (linkSplit != null) {
        TypedTables.RelationTable r = linkSplit.relation;
        TypeVertexStage.Result dst = types.get(r.dstType());
        Path dstDir = staging.resolve(StoreLayout.typeDir(r.dstType()));
        Path dir = staging.resolve(StoreLayout.relationDir(r.name()));
        edgeSplit =
            steps.call(
                stepNames.get(step++),
                () ->
                    linkSplit.write(
                        RelationEdgeStage.ids(spark, conf, dstDir, dst),
                        types.get(r.srcType()),
                        dst,
                        dir));
        LOG.info("prepare: held-out edges of relation '{}' written", r.name());
      }
      if (layoutTarget != null) {
        TypedStagedGraph shape =
            TypedFeatureLayouts.staged(types, relations, written, layoutTarget);
        steps.run(
            stepNames.get(step++),
            () -> new TypedFeatureLayoutStage(spark).write(staging, shape, layout));
        LOG.info("prepare: feature rows laid out ({})", layout.id());
      }
      StoreManifest m = TypedManifests.of(types, relations, java.util.Arrays.asList(written));
      if (layoutTarget != null) {
        for (StoreManifest.TypeEntry te : m.types) {
          te.featureLayout = te.featureDim > 0 ? layout.id() : null;
        }
      }
      m.edgeSplit = edgeSplit;
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

  /**
   * The options the manifest records: the resolved ones but where the data came from and went to,
   * and those of one-table features a typed store refuses.
   */
  private Map<String, String> recorded(PerType<StoreFeatureEncoding> encodings, boolean link) {
    Map<String, String> recorded = conf.resolvedExcept(PrepareOptions.NOT_RECORDED);
    if (!link) {
      // stores without a link split record what they did before the options existed
      for (OptionDef<?> d : PrepareOptions.EDGE_SPLIT_OPTIONS) {
        recorded.remove(d.name());
      }
      recorded.remove(PrepareOptions.LINK_RELATION.name());
    }
    if (conf.get(PrepareOptions.EDGE_SPLIT_COLUMN).isEmpty()) {
      // stores split by fractions record what they did before the option existed
      recorded.remove(PrepareOptions.EDGE_SPLIT_COLUMN.name());
    }
    if (!conf.get(PrepareOptions.PARTITIONER).readsEdges()) {
      // hash and range stores record what they did before graph partitioners were built for them
      for (OptionDef<?> d : PrepareOptions.GRAPH_PARTITIONER_ONLY) {
        recorded.remove(d.name());
      }
    }
    if (conf.get(PrepareOptions.WEIGHT_COLUMN).isEmpty()) {
      // stores without it record what they did before typed weights existed
      recorded.remove(PrepareOptions.WEIGHT_COLUMN.name());
    }
    if (!conf.get(PrepareOptions.UNDIRECTED)) {
      // directed stores record what they did before typed --undirected existed
      recorded.remove(PrepareOptions.UNDIRECTED.name());
    }
    if (conf.get(PrepareOptions.FEATURE_LAYOUT) == FeatureLayoutKind.IDENTITY) {
      // stores without a layout record what they did before typed layouts existed
      recorded.remove(PrepareOptions.FEATURE_LAYOUT.name());
    }
    boolean pq = encodings.fallback() == StoreFeatureEncoding.PQ;
    for (StoreFeatureEncoding e : encodings.byType().values()) {
      pq |= e == StoreFeatureEncoding.PQ;
    }
    if (!pq) {
      recorded.remove(QuantizeOptions.PQ_GROUP_SIZE.name());
      recorded.remove(QuantizeOptions.PQ_SAMPLE_ROWS.name());
      recorded.remove(QuantizeOptions.PQ_SEED.name());
    }
    return recorded;
  }

  /** Refuses an output equal to, inside or holding an input table's path (or files). */
  private void refuseOutputOverInputs(Path out) {
    DisjointPaths paths = new DisjointPaths();
    for (TypedTables.TypeTable t : in.types) {
      input(paths, t.source(), t.path(), t.table());
    }
    for (TypedTables.RelationTable r : in.relations) {
      input(paths, r.source(), r.path(), r.table());
    }
    paths.output("--output", out).check();
  }

  private void input(DisjointPaths paths, String name, String path, Dataset<Row> table) {
    if (path != null) {
      paths.input(name, LocalTablePaths.of(spark, path));
      return;
    }
    for (Path f : LocalTablePaths.files(spark, table)) {
      paths.input(name + " file", f);
    }
  }

  private static double secondsSince(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}
