package io.fanout.spark.prepare;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.store.Checksums;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** The two input tables of {@code prepare}, from paths or DataFrames, with names for errors. */
final class InputTables {
  final Dataset<Row> vertices;
  final Dataset<Row> edges;

  /** How errors name the tables, e.g. {@code "vertices /data/v.parquet"}. */
  final String vertexSource;

  final String edgeSource;

  /** True when read from CSV: every column is text and must be parsed. */
  final boolean csv;

  final String fingerprint;

  private InputTables(
      Dataset<Row> vertices,
      Dataset<Row> edges,
      String vertexSource,
      String edgeSource,
      boolean csv,
      String fingerprint) {
    this.vertices = vertices;
    this.edges = edges;
    this.vertexSource = vertexSource;
    this.edgeSource = edgeSource;
    this.csv = csv;
    this.fingerprint = fingerprint;
  }

  static InputTables fromDataFrames(Dataset<Row> v, Dataset<Row> e) {
    String fp =
        Checksums.sha256(
            "dataframes\n"
                + v.semanticHash()
                + "\n"
                + e.semanticHash()
                + "\n"
                + filesDigest(v.sparkSession(), v.inputFiles())
                + filesDigest(e.sparkSession(), e.inputFiles()));
    return new InputTables(v, e, "vertices DataFrame", "edges DataFrame", false, fp);
  }

  static InputTables fromPaths(SparkSession spark, FanoutConf conf) {
    String vp = conf.get(PrepareOptions.VERTICES);
    String ep = conf.get(PrepareOptions.EDGES);
    if (vp.isEmpty() || ep.isEmpty()) {
      throw new FanoutConfigException(
          "prepare needs --vertices PATH and --edges PATH (or DataFrames through the Java API)");
    }
    String format = conf.get(PrepareOptions.FORMAT).id();
    Configuration hadoop = spark.sessionState().newHadoopConf();
    boolean csv = format.equals("csv");
    StringBuilder digest = new StringBuilder(format).append('\n');
    digest.append(InputFiles.check(hadoop, vp, "vertices", csv).digest);
    digest.append(InputFiles.check(hadoop, ep, "edges", csv).digest);
    Dataset<Row> v = read(spark, vp, csv);
    Dataset<Row> e = read(spark, ep, csv);
    return new InputTables(
        v, e, "vertices " + vp, "edges " + ep, csv, Checksums.sha256(digest.toString()));
  }

  static Dataset<Row> read(SparkSession spark, String path, boolean csv) {
    if (csv) {
      return CsvTables.read(spark, path);
    }
    return spark.read().parquet(path);
  }

  static String filesDigest(SparkSession spark, String[] files) {
    String[] sorted = files.clone();
    Arrays.sort(sorted);
    Configuration hadoop = spark.sessionState().newHadoopConf();
    StringBuilder sb = new StringBuilder();
    for (String f : sorted) {
      try {
        Path p = new Path(f);
        FileStatus s = p.getFileSystem(hadoop).getFileStatus(p);
        sb.append(f).append('\t').append(s.getLen()).append('\t').append(s.getModificationTime());
      } catch (IOException e) {
        sb.append(f);
      }
      sb.append('\n');
    }
    return sb.toString();
  }
}
