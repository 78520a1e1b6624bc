package io.fanout.spark.train;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.monotonically_increasing_id;

import io.fanout.graph.GraphStore;
import io.fanout.spark.internal.JobLabels;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.train.CandidatePairChunks;
import io.fanout.train.CandidatePairFile;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Reads the candidate pairs of {@code infer --task link --pairs TABLE} (Parquet, or CSV with a
 * header) and maps their original ids to the store's dense ids through its id map, in labelled
 * Spark jobs; the pairs come back to the driver in the table's row order a partition at a time
 * ({@code toLocalIterator}) and are spilled to a local file ({@link CandidatePairFile}), read back
 * in chunks of {@link CandidatePairFile#CHUNK} pairs, so the table is never whole in the driver's
 * memory. An id that is not a vertex of the store (or not of its id type) is refused, naming the
 * table, column, row and value.
 */
public final class CandidatePairsReader {
  /** The Spark step that reads and maps the pairs. */
  public static final String STEP = "read the candidate pairs";

  private CandidatePairsReader() {}

  public static CandidatePairChunks read(
      SparkSession spark,
      Path graph,
      String table,
      String format,
      String srcColumn,
      String dstColumn) {
    requireTable(spark, table, format);
    Endpoints ids;
    try (GraphStore store = GraphStore.open(graph, false)) {
      Path idmap = store.dataRoot().resolve(StoreLayout.IDMAP_DIR);
      ids = new Endpoints(idmap, store.manifest().idType, idmap, store.manifest().idType, "");
    }
    return read(spark, graph, ids, table, format, srcColumn, dstColumn, CandidatePairFile.CHUNK);
  }

  /**
   * The id maps the pairs' two columns are looked up in: one map for a one-table store; the source
   * and the destination type's of a typed store's link relation, whose id types may differ (then
   * both columns keep their original ids as strings).
   *
   * @param what how an error names the vertices, e.g. " of type 'user'" ("" for a one-table store)
   */
  record Endpoints(Path srcIdmap, String srcIdType, Path dstIdmap, String dstIdType, String what) {}

  /**
   * The candidate pairs of a typed store's link relation {@code srcType -> dstType}: sources are
   * ids of {@code srcType}, destinations of {@code dstType}, mapped to type-local dense ids.
   */
  public static CandidatePairChunks readTyped(
      SparkSession spark,
      io.fanout.graph.TypedGraphStore store,
      int srcType,
      int dstType,
      String table,
      String format,
      String srcColumn,
      String dstColumn) {
    requireTable(spark, table, format);
    String s = store.schema().type(srcType).name();
    String d = store.schema().type(dstType).name();
    Endpoints ids =
        new Endpoints(
            store.idMap(srcType),
            store.manifest().types.get(srcType).idType,
            store.idMap(dstType),
            store.manifest().types.get(dstType).idType,
            " of type '" + s + "' (sources) or '" + d + "' (destinations)");
    return read(
        spark, store.root(), ids, table, format, srcColumn, dstColumn, CandidatePairFile.CHUNK);
  }

  /** The pairs of {@code table}, read back in chunks of {@code chunk} pairs. */
  static CandidatePairChunks read(
      SparkSession spark,
      Path graph,
      Endpoints ids,
      String table,
      String format,
      String srcColumn,
      String dstColumn,
      int chunk) {
    boolean sameType = ids.srcIdType().equals(ids.dstIdType());
    String idType = sameType ? ids.srcIdType() : "string";
    boolean text = idType.equals("string");
    try (CandidatePairFile.Writer spill = CandidatePairFile.create(idType, chunk)) {
      JobLabels.call(
          spark,
          "infer",
          STEP,
          1,
          1,
          () -> {
            Iterator<Row> rows =
                mapped(spark, ids, table, format, srcColumn, dstColumn).toLocalIterator();
            for (long i = 0; rows.hasNext(); i++) {
              Row r = rows.next();
              for (int side = 0; side < 2; side++) {
                if (r.isNullAt(4 + side)) {
                  throw new InvalidInputException(
                      "pairs table "
                          + table
                          + ": column '"
                          + (side == 0 ? srcColumn : dstColumn)
                          + "' row "
                          + i
                          + " (0-based) has value "
                          + (r.isNullAt(side) ? "null" : "'" + r.getString(side) + "'")
                          + ", which is not a vertex id"
                          + ids.what()
                          + " of "
                          + graph
                          + "; expected the original id ("
                          + (side == 0 ? ids.srcIdType() : ids.dstIdType())
                          + ") of one of its vertices");
                }
              }
              int sd = r.getInt(4);
              int dd = r.getInt(5);
              if (!sameType) {
                spill.add(sd, dd, r.getString(0), r.getString(1));
              } else if (text) {
                spill.add(sd, dd, r.getString(2), r.getString(3));
              } else if (idType.equals("long")) {
                spill.add(sd, dd, r.getLong(2), r.getLong(3));
              } else {
                spill.add(sd, dd, r.getInt(2), r.getInt(3));
              }
            }
            return null;
          });
      return spill.finish();
    }
  }

  /**
   * The pairs table in its row order, each pair as its two raw ids (strings), its two ids of the id
   * maps' types and its two dense ids (null where an id is not in the map).
   */
  private static Dataset<Row> mapped(
      SparkSession spark,
      Endpoints ids,
      String table,
      String format,
      String srcColumn,
      String dstColumn) {
    Dataset<Row> in;
    try {
      in =
          format.equals("csv")
              ? spark.read().option("header", "true").option("inferSchema", "false").csv(table)
              : spark.read().parquet(table);
    } catch (Exception e) { // Spark throws the checked AnalysisException undeclared
      if (!(e instanceof org.apache.spark.sql.AnalysisException)) {
        throw e;
      }
      throw new InvalidInputException(
          "pairs table " + table + " (" + format + ") cannot be read: " + e.getMessage(), e);
    }
    for (String c : new String[] {srcColumn, dstColumn}) {
      if (!Arrays.asList(in.columns()).contains(c)) {
        throw new InvalidInputException(
            "pairs table "
                + table
                + ": missing column '"
                + c
                + "' (--"
                + (c.equals(srcColumn) ? "src-column" : "dst-column")
                + "); the table has columns "
                + Arrays.toString(in.columns()));
      }
    }
    Dataset<Row> srcIds = spark.read().parquet(ids.srcIdmap().toUri().toString());
    Dataset<Row> dstIds = spark.read().parquet(ids.dstIdmap().toUri().toString());
    Column s = col(quote(srcColumn));
    Column d = col(quote(dstColumn));
    Dataset<Row> p =
        in.select(
            monotonically_increasing_id().as("_row"),
            s.cast("string").as("_s_raw"),
            d.cast("string").as("_d_raw"),
            s.try_cast(sqlType(ids.srcIdType())).as("_s"),
            d.try_cast(sqlType(ids.dstIdType())).as("_d"));
    return p.join(
            srcIds.select(col("id").as("_sid"), col("dense_id").as("_sd")),
            col("_s").equalTo(col("_sid")),
            "left")
        .join(
            dstIds.select(col("id").as("_did"), col("dense_id").as("_dd")),
            col("_d").equalTo(col("_did")),
            "left")
        .orderBy(col("_row"))
        .select(col("_s_raw"), col("_d_raw"), col("_s"), col("_d"), col("_sd"), col("_dd"));
  }

  private static void requireTable(SparkSession spark, String table, String format) {
    Path local = io.fanout.spark.internal.LocalTablePaths.of(spark, table);
    if (local != null && !java.nio.file.Files.exists(local)) {
      // before Spark looks for it, which logs a stack trace on the way to the same answer
      throw new InvalidInputException(
          "pairs table "
              + table
              + " does not exist; expected a "
              + (format.equals("csv") ? "CSV" : "Parquet")
              + " file or folder of candidate pairs (--pairs)");
    }
  }

  private static String sqlType(String idType) {
    return idType.equals("long") ? "bigint" : idType.equals("int") ? "int" : "string";
  }

  private static String quote(String name) {
    return "`" + name.replace("`", "``") + "`";
  }
}
