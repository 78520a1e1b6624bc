package io.fanout.spark.prepare;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.PerType;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.IdRankTable;
import io.fanout.store.StoreFeatureEncoding;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * The {@link PreparePlan} of a typed graph: each vertex type is estimated as the one-table vertex
 * stage estimates its vertex table (nodes, features in the type's encoding, id map, the vertex
 * shuffle, its id rank tables where a relation through it looks endpoints up), each relation as the
 * one-table edge stage estimates its edges into the destination type's partitions (CSR files,
 * weights where the relation has them, the endpoint join or, with {@code --id-lookup task} where it
 * applies ({@link TypedIdLookup}), none, and the edge shuffle), with the formulas of {@link
 * PreparePlanner}. Under a graph partitioner every type has the partitions of all types together.
 * Partition {@code p} of the plan sums partition {@code p} of every type and the CSR parts of every
 * relation into it. With {@code --feature-layout seed-groups} or {@code neighborhood} the layout
 * step is one more step ({@link TypedLayoutPlanner}). Row counts come from Parquet footers, or from
 * Spark counts where a table is not a plain Parquet scan.
 */
final class TypedPreparePlanner {
  private TypedPreparePlanner() {}

  /** One vertex type's figures. */
  private record TypeFigures(
      TypedTables.TypeTable table, InputStats stats, boolean stringIds, int partitions) {}

  /**
   * The plan; null when {@code footersOnly} and a table is not a plain Parquet scan (the figures
   * would need Spark counts).
   *
   * @param relations every relation the store will hold, the reverses {@code --add-reverse} adds
   *     included
   */
  static PreparePlan plan(
      SparkSession spark,
      FanoutConf conf,
      TypedTables in,
      List<TypedTables.RelationTable> relations,
      PerType<StoreFeatureEncoding> encodings,
      boolean linkSplit,
      TypedIdLookup idLookup,
      Path out,
      int requested,
      boolean footersOnly) {
    Map<String, TypeFigures> types = new LinkedHashMap<>();
    boolean counted = false;
    for (TypedTables.TypeTable t : in.types) {
      VertexNormalization n = VertexNormalization.of(t);
      InputStats s = InputStats.vertexFooters(t.table(), t.featuresColumn(), t.idColumn());
      if (s == null) {
        if (footersOnly) {
          return null;
        }
        s = InputStats.counted(n.vertices, t.featuresColumn() != null, 0);
        counted = true;
      }
      int k = requested > 0 ? requested : PrepareOptions.autoPartitions(s.vertices);
      types.put(t.name(), new TypeFigures(t, s, n.idTypeName().equals("string"), k));
    }
    boolean graphPartitioner = conf.get(PrepareOptions.PARTITIONER).readsEdges();
    if (graphPartitioner) {
      // every type gets the partitions of all types together
      long all = 0;
      for (TypeFigures f : types.values()) {
        all += f.stats.vertices;
      }
      int k = requested > 0 ? requested : PrepareOptions.autoPartitions(all);
      types.replaceAll((name, f) -> new TypeFigures(f.table, f.stats, f.stringIds, k));
    }
    long[] relationEdges = new long[relations.size()];
    Map<String, Long> declared = new LinkedHashMap<>();
    for (int i = 0; i < relations.size(); i++) {
      TypedTables.RelationTable r = relations.get(i);
      String counts = r.added() ? r.reverseOf() : r.name();
      Long known = declared.get(counts);
      if (known == null) {
        long e = InputStats.edgeFooterRows(r.table());
        if (e < 0) {
          if (footersOnly) {
            return null;
          }
          e = r.table().count();
          counted = true;
        }
        known = e;
        declared.put(counts, e);
      }
      relationEdges[i] = known;
    }

    Sums sums = new Sums();
    long rankTableBytes = 0;
    List<Map<String, Object>> typeInputs = new ArrayList<>();
    List<TypedLayoutPlanner.Type> layoutTypes = new ArrayList<>();
    int globalPartitions = 0;
    long vertices = 0;
    for (TypeFigures f : types.values()) {
      String enc = f.stats.featureDim == 0 ? "f32" : encodings.of(f.table.name()).id();
      boolean rankTables = idLookup.rankTables(f.table.name());
      PreparePlanner.Estimate e =
          PreparePlanner.estimate(
              context(
                  spark,
                  conf,
                  f.stats,
                  enc,
                  f.stringIds,
                  f.partitions,
                  false,
                  false,
                  graphPartitioner,
                  rankTables));
      long rowBytes = PreparePlanner.featureRowBytes(enc, f.stats.featureDim, conf);
      long featureFiles = 0;
      long largest = 0;
      for (PreparePlan.Partition p : e.partitions()) {
        long bytes = PreparePlanner.nodesFileBytes(p.vertices());
        if (f.stats.featureDim > 0) {
          long features = PreparePlanner.featureFileBytes(p.vertices(), rowBytes);
          featureFiles += features;
          bytes += features;
        }
        sums.partition(p.partition(), p.vertices(), 0, bytes);
        largest = Math.max(largest, p.vertices());
      }
      layoutTypes.add(
          new TypedLayoutPlanner.Type(f.table.name(), f.stats.vertices, featureFiles, largest));
      globalPartitions += e.partitions().size();
      for (String kind : List.of("nodes", "features", "idmap")) {
        sums.add(sums.store, kind, e.store().getOrDefault(kind, 0L));
      }
      sums.add(sums.shuffle, PrepareJob.VERTEX_FILES, e.shuffle().get(PrepareJob.VERTEX_FILES));
      sums.stages(e.stages(), PrepareJob.VERTEX_CHECKS, "type '" + f.table.name() + "'");
      sums.stages(e.stages(), PrepareJob.VERTEX_FILES, "type '" + f.table.name() + "'");
      sums.staging += e.stagingBytes();
      sums.notes.addAll(e.notes());
      if (rankTables) {
        for (PreparePlan.Partition p : e.partitions()) {
          rankTableBytes += IdRankTable.fileBytes(p.vertices());
        }
      }
      vertices += f.stats.vertices;
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("type", f.table.name());
      m.put("vertices", f.stats.vertices);
      m.put("feature_dim", f.stats.featureDim);
      m.put("encoding", f.stats.featureDim == 0 ? "" : enc);
      m.put("partitions", f.partitions);
      typeInputs.add(m);
    }
    List<Map<String, Object>> relationInputs = new ArrayList<>();
    List<TypedLayoutPlanner.Relation> layoutRelations = new ArrayList<>();
    long storeEdges = 0;
    for (int i = 0; i < relations.size(); i++) {
      TypedTables.RelationTable r = relations.get(i);
      TypeFigures dst = types.get(r.dstType());
      TypeFigures src = types.get(r.srcType());
      boolean weighted = r.weightColumn() != null;
      boolean symmetric = ReverseRelations.symmetric(conf.get(PrepareOptions.UNDIRECTED), r);
      InputStats s =
          new InputStats(
              dst.stats.vertices, relationEdges[i], 0, dst.stats.idBytes, dst.stats.source);
      boolean taskLookup =
          idLookup.lookingUp()
              && idLookup.obstacle(
                      r,
                      PreparePlanner.share(src.stats.vertices, src.partitions, 0),
                      PreparePlanner.share(dst.stats.vertices, dst.partitions, 0))
                  == null;
      PreparePlanner.Estimate e =
          PreparePlanner.estimate(
              context(
                  spark,
                  conf,
                  s,
                  "f32",
                  dst.stringIds,
                  dst.partitions,
                  weighted,
                  symmetric,
                  graphPartitioner,
                  taskLookup));
      for (PreparePlan.Partition p : e.partitions()) {
        long bytes = PreparePlanner.csrFileBytes(p.vertices(), p.edges());
        if (weighted) {
          bytes += PreparePlanner.weightFileBytes(p.edges());
        }
        sums.partition(p.partition(), 0, p.edges(), bytes);
      }
      sums.add(sums.store, "csr", e.store().get("csr"));
      if (weighted) {
        sums.add(sums.store, "weights", e.store().get("weights"));
      }

      sums.add(
          sums.shuffle,
          PreparePlanner.JOIN_STEP,
          e.shuffle().getOrDefault(PreparePlanner.JOIN_STEP, 0L));
      sums.add(sums.shuffle, PrepareJob.EDGE_FILES, e.shuffle().get(PrepareJob.EDGE_FILES));
      sums.stages(e.stages(), PreparePlanner.JOIN_STEP, "relation '" + r.name() + "'");
      sums.stages(e.stages(), PrepareJob.EDGE_FILES, "relation '" + r.name() + "'");
      // a symmetric relation stores each edge both ways round (an upper bound: not self-loops)
      long stored = symmetric ? 2 * relationEdges[i] : relationEdges[i];
      storeEdges += stored;
      layoutRelations.add(new TypedLayoutPlanner.Relation(r.srcType(), r.dstType(), stored));
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("relation", r.name());
      m.put("src_type", r.srcType());
      m.put("dst_type", r.dstType());
      m.put("edges", stored);
      m.put("added_reverse", r.added());
      m.put("symmetric", symmetric);
      m.put("weighted", weighted);
      m.put("id_lookup", taskLookup ? "task" : "sql");
      relationInputs.add(m);
    }
    sums.shuffle.remove(PreparePlanner.JOIN_STEP, 0L);
    sums.notes.removeIf(n -> n.startsWith("--feature-layout rewrites"));
    FeatureLayoutKind layout = conf.get(PrepareOptions.FEATURE_LAYOUT);
    if (layout != FeatureLayoutKind.IDENTITY) {
      String step = TypedPrepareJob.LAYOUT_STEP + layout.id();
      TypedLayoutPlanner.Estimate e =
          TypedLayoutPlanner.estimate(
              step,
              layoutTypes,
              layoutRelations,
              TypedFeatureLayouts.target(in.types, layout),
              layout,
              globalPartitions,
              ShuffleCodec.of(spark.sparkContext().getConf()));
      sums.add(sums.shuffle, step, e.shuffleBytes());
      sums.stages.put(step, e.stage());
      sums.staging += e.stagingBytes();
      sums.notes.add(
          "--feature-layout "
              + layout.id()
              + ": the staging folder also holds each featured type's feature files at their ids"
              + " until the step ends ("
              + e.stagingBytes()
              + " bytes); its shuffle counts every vertex of the labelled type as a seed and no"
              + " map-side combining (an upper bound)");
    }
    sums.notes.removeIf(n -> n.startsWith("held-out val/test edges"));
    sums.notes.removeIf(n -> n.startsWith("--id-lookup task:"));
    if (rankTableBytes > 0) {
      sums.notes.add(
          "--id-lookup task: the staging folder also holds the id rank tables of the types whose"
              + " relations look endpoints up ("
              + rankTableBytes
              + " bytes), removed once the csr files are written");
    }
    if (graphPartitioner) {
      sums.notes.removeIf(n -> n.startsWith("partition sizes are the expected mean"));
      sums.notes.add(
          "partition sizes are the expected mean; "
              + conf.get(PrepareOptions.PARTITIONER).id()
              + " partitions all types together and keeps each partition's vertices of all types"
              + " within 1.05x of their mean, a type's share of a partition varies");
    }
    if (linkSplit) {
      sums.notes.add(
          "held-out val/test edges of --link-relation stay in the estimate (an upper bound), and"
              + " their own files under relations/<name>/edgesplit/ are not counted");
    }
    sums.notes.add(
        "a relation that --add-reverse (or --undirected) adds has its forward relation's edge rows;"
            + " label-set files of multi-label types are not counted");
    sums.notes.removeIf(n -> n.startsWith("edges are an upper bound"));
    if (conf.get(PrepareOptions.UNDIRECTED) || conf.get(PrepareOptions.DEDUPE)) {
      sums.notes.add(
          "edges are an upper bound: --undirected doubles every edge of a relation within one type"
              + " but self-loops, --dedupe and --self-loops drop remove some");
    }

    long edgeRows = 0;
    for (long e : declared.values()) {
      edgeRows += e;
    }
    Map<String, Object> inputs = new LinkedHashMap<>();
    inputs.put("source", counted ? InputStats.COUNTED : InputStats.FOOTERS);
    inputs.put("vertices", vertices);
    inputs.put("edges", edgeRows);
    inputs.put("store_edges", storeEdges);
    inputs.put("types", typeInputs);
    inputs.put("relations", relationInputs);
    long store = sums.staging;
    for (long v : sums.store.values()) {
      store += v;
    }
    long shuffle = 0;
    for (long v : sums.shuffle.values()) {
      shuffle += v;
    }
    return new PreparePlan(
        inputs,
        conf.get(PrepareOptions.PARTITIONER).id(),
        sums.partitions(),
        sums.store,
        sums.shuffle,
        new ArrayList<>(sums.stages.values()),
        SpaceCheck.disks(spark, out, store, shuffle),
        new ArrayList<>(sums.notes));
  }

  private static PreparePlanner.Context context(
      SparkSession spark,
      FanoutConf conf,
      InputStats s,
      String encoding,
      boolean stringIds,
      int partitions,
      boolean weighted,
      boolean undirected,
      boolean graphPartitioner,
      boolean taskLookup) {
    return new PreparePlanner.Context(
        s,
        conf,
        encoding,
        partitions,
        weighted,
        undirected,
        stringIds,
        graphPartitioner,
        taskLookup,
        spark.sessionState().conf().autoBroadcastJoinThreshold(),
        spark.sessionState().conf().numShufflePartitions(),
        ShuffleCodec.of(spark.sparkContext().getConf()));
  }

  /** The plan's parts summed over types and relations. */
  private static final class Sums {
    final Map<String, Long> store = new LinkedHashMap<>();
    final Map<String, Long> shuffle = new LinkedHashMap<>();
    final Map<String, PreparePlan.Stage> stages = new LinkedHashMap<>();
    final Set<String> notes = new LinkedHashSet<>();
    final List<long[]> parts = new ArrayList<>();
    long staging;

    void add(Map<String, Long> m, String key, Long bytes) {
      m.merge(key, bytes == null ? 0L : bytes, Long::sum);
    }

    void partition(int p, long vertices, long edges, long bytes) {
      while (parts.size() <= p) {
        parts.add(new long[3]);
      }
      long[] a = parts.get(p);
      a[0] += vertices;
      a[1] += edges;
      a[2] += bytes;
    }

    /** Keeps, per step, the stage of the type or relation whose tasks hold the most. */
    void stages(List<PreparePlan.Stage> of, String step, String owner) {
      for (PreparePlan.Stage s : of) {
        if (s.step().equals(step)) {
          PreparePlan.Stage kept = stages.get(step);
          if (kept == null || s.executorBytes() > kept.executorBytes()) {
            stages.put(
                step,
                new PreparePlan.Stage(
                    step, s.executorBytes(), s.holds() + "; the largest is " + owner));
          }
        }
      }
    }

    List<PreparePlan.Partition> partitions() {
      List<PreparePlan.Partition> out = new ArrayList<>(parts.size());
      for (int p = 0; p < parts.size(); p++) {
        long[] a = parts.get(p);
        out.add(new PreparePlan.Partition(p, a[0], a[1], a[2]));
      }
      return out;
    }
  }
}
