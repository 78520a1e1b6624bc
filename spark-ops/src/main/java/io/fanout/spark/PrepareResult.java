package io.fanout.spark;

import io.fanout.spark.internal.JsonLine;
import io.fanout.spark.prepare.PrepareOutcome;
import io.fanout.spark.prepare.PreparePlan;
import io.fanout.store.StoreManifest;
import java.nio.file.Path;
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
 * What {@code prepare} produced: the store, its manifest, whether the run was skipped, and the
 * store's summary as DataFrames (built from the manifest on the driver: no Spark job, no data
 * read).
 */
public final class PrepareResult {
  /** Columns of {@link #summary()}. */
  public static final StructType SUMMARY_SCHEMA =
      new StructType()
          .add("store", DataTypes.StringType, false)
          .add("skipped", DataTypes.BooleanType, false)
          .add("vertices", DataTypes.LongType, false)
          .add("edges", DataTypes.LongType, false)
          .add("partitions", DataTypes.IntegerType, false)
          .add("feature_dim", DataTypes.IntegerType, false)
          .add("feature_encoding", DataTypes.StringType, true)
          .add("classes", DataTypes.IntegerType, false)
          .add("id_type", DataTypes.StringType, true)
          .add("train", DataTypes.LongType, false)
          .add("val", DataTypes.LongType, false)
          .add("test", DataTypes.LongType, false)
          .add("min_in_degree", DataTypes.LongType, false)
          .add("max_in_degree", DataTypes.LongType, false)
          .add("mean_in_degree", DataTypes.DoubleType, false)
          .add("dropped_dangling_edges", DataTypes.LongType, false);

  /** Columns of {@link #partitions()}. */
  public static final StructType PARTITIONS_SCHEMA =
      new StructType()
          .add("partition", DataTypes.IntegerType, false)
          .add("first_vertex", DataTypes.LongType, false)
          .add("vertices", DataTypes.LongType, false)
          .add("edges", DataTypes.LongType, false);

  private final SparkSession spark;
  private final Path store;
  private final StoreManifest manifest;
  private final boolean skipped;
  private final double seconds;
  private final PreparePlan plan;

  public PrepareResult(
      SparkSession spark, Path store, StoreManifest manifest, boolean skipped, double seconds) {
    this(spark, store, manifest, skipped, seconds, null);
  }

  /**
   * @param manifest null for a dry run ({@code plan} is then its result)
   * @param plan the plan of a dry run; null otherwise
   */
  public PrepareResult(
      SparkSession spark,
      Path store,
      StoreManifest manifest,
      boolean skipped,
      double seconds,
      PreparePlan plan) {
    this.spark = spark;
    this.store = store;
    this.manifest = manifest;
    this.skipped = skipped;
    this.seconds = seconds;
    this.plan = plan;
  }

  /** The result of what a {@code prepare} or {@code quantize} job produced. */
  static PrepareResult of(SparkSession spark, PrepareOutcome o) {
    return new PrepareResult(spark, o.store(), o.manifest(), o.skipped(), o.seconds(), o.plan());
  }

  /** The plan of a {@code dry-run}: what the run would write and hold; null after a real run. */
  public PreparePlan plan() {
    return plan;
  }

  /** True for a {@code dry-run}, which wrote nothing: {@link #plan()} is its result. */
  public boolean dryRun() {
    return manifest == null;
  }

  private StoreManifest written() {
    if (manifest == null) {
      throw new IllegalStateException("a dry run writes no store; see plan()");
    }
    return manifest;
  }

  public Path store() {
    return store;
  }

  /** The written store's manifest; null after a dry run. */
  public StoreManifest manifest() {
    return manifest;
  }

  /** True when a complete store from the same inputs and options was already there. */
  public boolean skipped() {
    return skipped;
  }

  /** Wall-clock seconds of the call. */
  public double seconds() {
    return seconds;
  }

  /** One row: the store's counts, split sizes, degree statistics and feature layout. */
  public Dataset<Row> summary() {
    StoreManifest m = written();
    Row row =
        RowFactory.create(
            store.toString(),
            skipped,
            m.vertices,
            m.edges,
            m.partitions,
            m.featureDim,
            m.featureEncoding,
            m.classes,
            m.idType,
            m.splitCounts.getOrDefault("train", 0L),
            m.splitCounts.getOrDefault("val", 0L),
            m.splitCounts.getOrDefault("test", 0L),
            m.degree.min,
            m.degree.max,
            m.degree.mean,
            m.droppedDanglingEdges);
    return spark.createDataFrame(List.of(row), SUMMARY_SCHEMA);
  }

  /** One row per partition: the dense-id range it owns and its vertex and edge counts. */
  public Dataset<Row> partitions() {
    List<Row> rows = new ArrayList<>(written().partitionTable.size());
    for (StoreManifest.Partition p : manifest.partitionTable) {
      rows.add(RowFactory.create(p.index, p.firstVertex, p.numVertices, p.numEdges));
    }
    return spark.createDataFrame(rows, PARTITIONS_SCHEMA);
  }

  /**
   * The result as the one JSON line {@code bin/fanout prepare} prints; a dry run's is its plan's
   * ({@link PreparePlan#toJson()}).
   */
  public String toJson() {
    if (manifest == null) {
      return plan.toJson();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("store", store.toString());
    out.put("skipped", skipped);
    out.put("vertices", manifest.vertices);
    out.put("edges", manifest.edges);
    out.put("partitions", manifest.partitions);
    out.put("feature_dim", manifest.featureDim);
    out.put("classes", manifest.classes);
    out.put("split_counts", manifest.splitCounts);
    out.put("dropped_dangling_edges", manifest.droppedDanglingEdges);
    if (manifest.typed()) {
      Map<String, Long> types = new LinkedHashMap<>();
      manifest.types.forEach(t -> types.put(t.name, t.vertices));
      Map<String, Long> relations = new LinkedHashMap<>();
      manifest.relations.forEach(r -> relations.put(r.name, r.edges));
      out.put("types", types);
      out.put("relations", relations);
    }
    out.put("seconds", Math.round(seconds * 1000) / 1000.0);
    return JsonLine.of(out);
  }

  @Override
  public String toString() {
    return toJson();
  }
}
