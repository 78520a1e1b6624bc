package io.fanout.spark.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The local files behind a table Spark reads (a path as the session's Hadoop configuration resolves
 * it, or a DataFrame's files), so that a command can keep its outputs away from them. A table on
 * another file system has none: no local output can overlap it.
 */
public final class LocalTablePaths {
  private LocalTablePaths() {}

  /**
   * The local path {@code path} names for {@code spark}'s Hadoop configuration (a path without a
   * scheme is on the default file system), or null when it is on another file system or is not a
   * path at all (the read reports that).
   */
  public static Path of(SparkSession spark, String path) {
    return of(spark.sessionState().newHadoopConf(), path);
  }

  private static Path of(Configuration hadoop, String path) {
    if (path == null || path.isBlank()) {
      return null;
    }
    try {
      org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(path);
      FileSystem fs = p.getFileSystem(hadoop);
      if (!"file".equals(fs.getScheme())) {
        return null;
      }
      return Paths.get(fs.makeQualified(p).toUri());
    } catch (IOException | IllegalArgumentException e) {
      return null;
    }
  }

  /** The local files {@code table} reads (Spark's best effort: none for rows built in memory). */
  public static Path[] files(SparkSession spark, Dataset<Row> table) {
    Configuration hadoop = spark.sessionState().newHadoopConf();
    String[] uris = table.inputFiles();
    List<Path> local = new ArrayList<>();
    for (String u : uris) {
      Path p = of(hadoop, u);
      if (p != null) {
        local.add(p);
      }
    }
    return local.toArray(new Path[0]);
  }
}
