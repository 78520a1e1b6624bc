package io.fanout.spark.prepare;

import io.fanout.graph.FeatureRelayout;
import io.fanout.graph.PartitionRelayout;
import io.fanout.store.FeatureLayoutKind;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The feature layout step of {@code prepare} and {@code quantize}: one Spark task per store
 * partition computes that partition's positions from its staged CSR and nodes files, rewrites its
 * feature file and writes its slice of the order file ({@link PartitionRelayout}). The driver holds
 * a few numbers per partition; a task, memory in proportion to its partition. The files are those
 * of the one-JVM path, whatever the number of tasks or executors.
 */
final class FeatureLayoutStage {
  private final SparkSession spark;

  FeatureLayoutStage(SparkSession spark) {
    this.spark = spark;
  }

  /**
   * Lays out in {@code kind} the feature files staged in {@code dataDir} (a folder every executor
   * sees, as the other staged files), whose partitions are {@code staged}.
   */
  void write(Path dataDir, PartitionRelayout.Staged staged, FeatureLayoutKind kind) {
    int rowBytes = FeatureRelayout.stagedRowBytes(dataDir);
    PartitionRelayout.start(dataDir, staged, kind);
    int parts = staged.partitions();
    List<Integer> ids = new ArrayList<>(parts);
    for (int p = 0; p < parts; p++) {
      ids.add(p);
    }
    String dir = dataDir.toAbsolutePath().toString();
    JavaSparkContext.fromSparkContext(spark.sparkContext())
        .parallelize(ids, Math.max(1, parts))
        .foreach(p -> PartitionRelayout.layOut(Paths.get(dir), staged, p, rowBytes, kind));
    PartitionRelayout.finish(dataDir, staged);
  }
}
