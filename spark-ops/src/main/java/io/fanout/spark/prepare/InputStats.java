package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.size;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.column.statistics.Statistics;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.datasources.LogicalRelation;

/**
 * What the plan of {@code prepare} needs to know of its inputs: row counts, the feature length and
 * the bytes of an original vertex id. From Parquet footers when every input is a Parquet file scan
 * (no Spark job, no data read), else counted by Spark.
 */
final class InputStats {
  /** Where the figures came from, as the plan reports it. */
  static final String FOOTERS = "parquet footers";

  static final String COUNTED = "counted by spark";
  static final String VALIDATED = "validation pass";

  final long vertices;
  final long edges;
  final int featureDim;

  /** Mean bytes of an original id (8 for int64 ids; mean UTF-8 length for strings). */
  final double idBytes;

  final String source;

  /**
   * Bytes the input's feature column takes on disk (compressed) per float32 of its values, at most
   * 1: how well the features compress (cora's 0/1 bag of words: a few percent; random floats: 1). 1
   * when unknown.
   */
  final double featureCompression;

  InputStats(long vertices, long edges, int featureDim, double idBytes, String source) {
    this(vertices, edges, featureDim, idBytes, source, 1);
  }

  InputStats(
      long vertices,
      long edges,
      int featureDim,
      double idBytes,
      String source,
      double featureCompression) {
    this.vertices = vertices;
    this.edges = edges;
    this.featureDim = featureDim;
    this.idBytes = idBytes;
    this.source = source;
    this.featureCompression = featureCompression;
  }

  /**
   * From the footers of the Parquet files the tables scan; null when a table is not a plain scan of
   * Parquet files (a DataFrame built in memory, CSV). A DataFrame that filters its files is
   * over-estimated: its footers count every row of the files.
   */
  static InputStats fromFooters(InputTables in, String featureColumn, String idColumn) {
    if (!parquetScan(in.vertices) || !parquetScan(in.edges)) {
      return null;
    }
    Configuration hadoop = in.vertices.sparkSession().sessionState().newHadoopConf();
    Footers v = Footers.read(hadoop, in.vertices.inputFiles(), featureColumn, idColumn);
    Footers e = Footers.read(hadoop, in.edges.inputFiles(), null, null);
    return vertexStats(v, e.rows);
  }

  /**
   * One vertex table's figures ({@code edges} 0) from its Parquet footers; null when it is not a
   * plain scan of Parquet files. The typed plan reads each type's table with this.
   */
  static InputStats vertexFooters(Dataset<Row> vertices, String featureColumn, String idColumn) {
    if (!parquetScan(vertices)) {
      return null;
    }
    Configuration hadoop = vertices.sparkSession().sessionState().newHadoopConf();
    Footers v = Footers.read(hadoop, vertices.inputFiles(), featureColumn, idColumn);
    return vertexStats(v, 0);
  }

  /** The rows of an edge table from its Parquet footers; -1 when it is not a plain scan of them. */
  static long edgeFooterRows(Dataset<Row> edges) {
    if (!parquetScan(edges)) {
      return -1;
    }
    Configuration hadoop = edges.sparkSession().sessionState().newHadoopConf();
    return Footers.read(hadoop, edges.inputFiles(), null, null).rows;
  }

  private static InputStats vertexStats(Footers v, long edges) {
    int dim = v.rows == 0 ? 0 : (int) Math.round((double) v.featureValues / v.rows);
    double idBytes = v.rows == 0 || v.idBytes == 0 ? 8 : Math.max(1, (double) v.idBytes / v.rows);
    double compression =
        v.featureValues == 0 ? 1 : Math.min(1, (double) v.featureBytes / (4.0 * v.featureValues));
    return new InputStats(v.rows, edges, dim, idBytes, FOOTERS, compression);
  }

  /**
   * The rows of {@code table} when it is exactly a scan of Parquet files (no filter or projection
   * over it) whose footers give, for every row group, a null count of 0 for each of {@code
   * columns}; else -1 (a row group without statistics for one of them, a column absent from a file,
   * any other plan). Reads the footers only.
   */
  static long rowsWithoutNulls(Dataset<Row> table, String... columns) {
    if (!(table.queryExecution().analyzed() instanceof LogicalRelation) || !parquetScan(table)) {
      return -1;
    }
    Configuration hadoop = table.sparkSession().sessionState().newHadoopConf();
    long rows = 0;
    for (String file : table.inputFiles()) {
      for (BlockMetaData b : blocks(hadoop, file)) {
        int clean = 0;
        for (ColumnChunkMetaData c : b.getColumns()) {
          String[] path = c.getPath().toArray();
          if (path.length == 1 && Arrays.asList(columns).contains(path[0])) {
            Statistics<?> st = c.getStatistics();
            if (st == null || !st.isNumNullsSet() || st.getNumNulls() != 0) {
              return -1;
            }
            clean++;
          }
        }
        if (clean != columns.length) {
          return -1;
        }
        rows += b.getRowCount();
      }
    }
    return rows;
  }

  /**
   * The rows of {@code table} from the footers of its files when it is exactly a scan of Parquet
   * files (no filter or projection over it); else -1. Reads the footers only.
   */
  static long scanRows(Dataset<Row> table) {
    return rowsWithoutNulls(table);
  }

  /** By Spark: a count of each table and the feature length of one vertex (three small jobs). */
  static InputStats counted(NormalizedTables t) {
    return counted(t.vertices, t.hasFeatures, t.edges.count());
  }

  /**
   * By Spark: the rows of a normalized vertex table ({@link NormalizedTables#FEAT} holds its
   * features when {@code hasFeatures}) and the feature length of one vertex; {@code edges} as
   * given.
   */
  static InputStats counted(Dataset<Row> vertices, boolean hasFeatures, long edges) {
    long v = vertices.count();
    int dim = 0;
    if (hasFeatures && v > 0) {
      Row r =
          vertices
              .where(col(NormalizedTables.FEAT).isNotNull())
              .select(size(col(NormalizedTables.FEAT)))
              .first();
      dim = Math.max(0, r.getInt(0));
    }
    return new InputStats(v, edges, dim, 8, COUNTED);
  }

  private static boolean parquetScan(Dataset<Row> table) {
    String[] files = table.inputFiles();
    if (files.length == 0) {
      return false;
    }
    for (String f : files) {
      if (!f.endsWith(".parquet")) {
        return false;
      }
    }
    List<LogicalPlan> leaves =
        scala.jdk.javaapi.CollectionConverters.asJava(
            table.queryExecution().analyzed().collectLeaves());
    for (LogicalPlan leaf : leaves) {
      if (!(leaf instanceof LogicalRelation)) {
        return false;
      }
    }
    return true;
  }

  /** The row groups that the footer of the Parquet file {@code file} describes. */
  private static List<BlockMetaData> blocks(Configuration hadoop, String file) {
    org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(file);
    try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(p, hadoop))) {
      return r.getFooter().getBlocks();
    } catch (IOException e) {
      throw new UncheckedIOException("reading the Parquet footer of " + file, e);
    }
  }

  /** Sums over the footers of some Parquet files. */
  private static final class Footers {
    long rows;
    long featureValues;
    long featureBytes;
    long idBytes;

    static Footers read(Configuration hadoop, String[] files, String featureColumn, String idCol) {
      Footers f = new Footers();
      String[] sorted = files.clone();
      Arrays.sort(sorted);
      for (String file : sorted) {
        for (BlockMetaData b : blocks(hadoop, file)) {
          f.rows += b.getRowCount();
          long widest = 0;
          for (ColumnChunkMetaData c : b.getColumns()) {
            String[] path = c.getPath().toArray();
            if (featureColumn != null && path.length > 1 && path[0].equals(featureColumn)) {
              // array<float>: features.list.element; ML vectors: features.values.list.element
              widest = Math.max(widest, c.getValueCount());
              f.featureBytes += c.getTotalSize();
            } else if (idCol != null && path.length == 1 && path[0].equals(idCol)) {
              f.idBytes += c.getTotalUncompressedSize();
            }
          }
          f.featureValues += widest;
        }
      }
      return f;
    }
  }
}
