package io.fanout.spark;

import io.fanout.shard.ShardManifest;
import io.fanout.spark.internal.JsonLine;
import io.fanout.spark.sample.SampleOutcome;
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
 * What {@code sample} produced: the shard directory, its manifest, whether the run was skipped, and
 * the run's counts and duration (zero when skipped).
 */
public final class SampleResult {
  /** The columns of {@link #parts()}, one row per part file. */
  public static final StructType PARTS_SCHEMA =
      new StructType()
          .add("epoch", DataTypes.IntegerType, false)
          .add("part", DataTypes.IntegerType, false)
          .add("first_batch", DataTypes.IntegerType, false)
          .add("batches", DataTypes.IntegerType, false)
          .add("seeds", DataTypes.LongType, false)
          .add("nodes", DataTypes.LongType, false)
          .add("edges", DataTypes.LongType, false)
          .add("bytes", DataTypes.LongType, false)
          .add("path", DataTypes.StringType, false);

  private final SparkSession spark;
  private final Path output;
  private final ShardManifest manifest;
  private final boolean skipped;
  private final double seconds;
  private final long shuffleBytes;

  /**
   * @param output the shard directory as requested
   * @param seconds how long sampling took; 0 when skipped
   */
  public SampleResult(
      SparkSession spark, Path output, ShardManifest manifest, boolean skipped, double seconds) {
    this(spark, output, manifest, skipped, seconds, -1);
  }

  /**
   * @param shuffleBytes bytes the run's Spark tasks wrote to shuffle files; -1 when not measured
   */
  public SampleResult(
      SparkSession spark,
      Path output,
      ShardManifest manifest,
      boolean skipped,
      double seconds,
      long shuffleBytes) {
    this.shuffleBytes = shuffleBytes;
    this.spark = spark;
    this.output = output;
    this.manifest = manifest;
    this.skipped = skipped;
    this.seconds = seconds;
  }

  /** The result of what a {@code sample} job produced. */
  static SampleResult of(SparkSession spark, SampleOutcome o) {
    return new SampleResult(
        spark, o.output(), o.manifest(), o.skipped(), o.seconds(), o.shuffleBytes());
  }

  /** The shard directory. */
  public Path output() {
    return output;
  }

  /** Its {@code manifest.json}: the request, every part file and the totals. */
  public ShardManifest manifest() {
    return manifest;
  }

  /** True when complete shards of the same request were already there; nothing was written. */
  public boolean skipped() {
    return skipped;
  }

  /** Bytes the run's Spark tasks wrote to shuffle files (all epochs); -1 when not measured. */
  public long shuffleBytes() {
    return shuffleBytes;
  }

  /** The execution mode of the run that wrote the shards. */
  public String mode() {
    return manifest.mode;
  }

  public int epochs() {
    return manifest.epochs;
  }

  public int batchesPerEpoch() {
    return manifest.batchesPerEpoch;
  }

  /** The number of part files. */
  public int partCount() {
    return manifest.files.size();
  }

  public long sampledEdges() {
    return manifest.totals.edges;
  }

  public long bytes() {
    return manifest.totals.bytes;
  }

  /** Seconds this run spent sampling; 0 when {@link #skipped()}. */
  public double seconds() {
    return seconds;
  }

  /**
   * The result as the one JSON line {@code bin/fanout sample} prints: {@code output}, {@code
   * skipped} and {@code manifest} when skipped, else also the mode, counts and speed.
   */
  public String toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("output", output.toString());
    m.put("skipped", skipped);
    if (!skipped) {
      m.put("mode", mode());
      m.put("epochs", epochs());
      m.put("batches_per_epoch", batchesPerEpoch());
      m.put("parts", partCount());
      m.put("sampled_edges", sampledEdges());
      m.put("bytes", bytes());
      m.put("seconds", seconds);
      m.put("sampled_edges_per_s", sampledEdges() / seconds);
      if (shuffleBytes >= 0) {
        m.put("shuffle_bytes", shuffleBytes);
        m.put("shuffle_bytes_per_epoch", shuffleBytes / Math.max(1, epochs()));
      }
    }
    m.put("manifest", output.resolve(ShardManifest.FILE).toString());
    return JsonLine.of(m);
  }

  /**
   * One row per part file, in epoch and part order, from the manifest (see {@link #PARTS_SCHEMA});
   * {@code path} is the file's absolute path, readable with {@code spark.read().parquet}.
   */
  public Dataset<Row> parts() {
    Path dir = manifest.dataRoot(output.toAbsolutePath().normalize());
    List<Row> rows = new ArrayList<>(manifest.files.size());
    for (ShardManifest.Part p : manifest.files) {
      rows.add(
          RowFactory.create(
              p.epoch,
              p.part,
              p.firstBatch,
              p.endBatch - p.firstBatch,
              p.seeds,
              p.nodes,
              p.edges,
              p.bytes,
              dir.resolve(p.path).toString()));
    }
    return spark.createDataFrame(rows, PARTS_SCHEMA);
  }
}
