package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.col;

import io.fanout.store.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Strict CSV input: every column is read as text under the header's names, and a row whose field
 * count differs from the header's is kept whole in {@link #BAD_ROW} (Spark's reader would otherwise
 * drop extra fields or pad missing ones with nulls without a word).
 *
 * <p>Column pruning is off for these reads: with it, Spark tokenizes only the selected fields and
 * can no longer see how many a row has.
 */
final class CsvTables {
  /** The raw line of a row whose field count differs from the header's; null for good rows. */
  static final String BAD_ROW = "_fanout_csv_bad_row";

  private CsvTables() {}

  static Dataset<Row> read(SparkSession spark, String path) {
    StructType header =
        spark.read().option("header", "true").option("inferSchema", "false").csv(path).schema();
    StructType schema = new StructType();
    for (StructField f : header.fields()) {
      schema = schema.add(f.name(), DataTypes.StringType);
    }
    schema = schema.add(BAD_ROW, DataTypes.StringType);
    return spark
        .read()
        .option("header", "true")
        .option("mode", "PERMISSIVE")
        .option("columnNameOfCorruptRecord", BAD_ROW)
        .option("columnPruning", "false")
        .schema(schema)
        .csv(path);
  }

  /** The table's columns other than {@link #BAD_ROW}: the header's. */
  static List<String> columns(Dataset<Row> d) {
    List<String> names = new ArrayList<>();
    for (String c : d.columns()) {
      if (!c.equals(BAD_ROW)) {
        names.add(c);
      }
    }
    return names;
  }

  /** The check that refuses rows whose field count differs from the header's. */
  static Check fieldCountCheck(Dataset<Row> d, boolean hasTextFeatures) {
    List<String> header = columns(d);
    return new FieldCount(header, hasTextFeatures);
  }

  /** Errors name the file, the row as written and both field counts. */
  private static final class FieldCount extends Check {
    private final List<String> header;
    private final boolean hasTextFeatures;

    FieldCount(List<String> header, boolean hasTextFeatures) {
      super(
          String.join(",", header),
          "a field count other than the header's",
          "exactly " + header.size() + " fields per row",
          col(BAD_ROW).isNotNull());
      this.header = header;
      this.hasTextFeatures = hasTextFeatures;
    }

    @Override
    InvalidInputException error(
        String source, Dataset<Row> table, List<Column> sampleColumns, long count) {
      List<Row> rows =
          table
              .where(bad)
              // Spark refuses a query of the bad-row column alone: a header column comes along
              .select(col(BAD_ROW), col("_metadata.file_path"), col(quoted(header.get(0))))
              .limit(1)
              .collectAsList();
      String line = rows.isEmpty() ? "?" : rows.get(0).getString(0);
      String file = rows.isEmpty() ? "?" : rows.get(0).getString(1);
      int fields = fieldCount(line);
      String hint =
          hasTextFeatures && fields > header.size()
              ? "; a feature list with commas must be quoted, e.g. 1,\"0.1,0.2\",3"
              : "";
      return new InvalidInputException(
          source
              + ": file "
              + file
              + ": "
              + count
              + " row(s) whose field count differs from the header's "
              + header.size()
              + " columns ("
              + truncate(String.join(",", header), 200)
              + "), e.g. row '"
              + truncate(line, 300)
              + "' with "
              + fields
              + " field(s); expected exactly "
              + header.size()
              + " fields per row"
              + hint);
    }
  }

  private static String quoted(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  /**
   * The number of comma-separated fields of one CSV line, commas inside double quotes not counted.
   */
  static int fieldCount(String line) {
    int fields = 1;
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields++;
      }
    }
    return fields;
  }
}
