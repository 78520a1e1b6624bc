package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import io.fanout.store.InvalidInputException;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * One validation rule over a normalized input table: rows where {@code bad} holds are errors.
 * Checks are counted together in one aggregation; only a failing check fetches a sample row.
 */
class Check {
  final String column;
  final String problem;
  final String expected;
  final Column bad;

  Check(String column, String problem, String expected, Column bad) {
    this.column = column;
    this.problem = problem;
    this.expected = expected;
    this.bad = bad;
  }

  /** The aggregate counting offending rows. */
  Column counter() {
    return sum(when(bad, lit(1L)).otherwise(lit(0L)));
  }

  /**
   * The error for {@code count} offending rows: names the table and column, shows one offending row
   * (its non-feature columns, as JSON) and says what was expected.
   *
   * @param sampleColumns columns shown for the sample row
   */
  InvalidInputException error(
      String source, Dataset<Row> table, List<Column> sampleColumns, long count) {
    List<Row> rows =
        table.where(bad).select(sampleColumns.toArray(new Column[0])).limit(1).collectAsList();
    String sample = rows.isEmpty() ? "?" : truncate(rows.get(0).json(), 300);
    return new InvalidInputException(
        source
            + ": column '"
            + column
            + "': "
            + count
            + " row(s) with "
            + problem
            + ", e.g. row "
            + sample
            + "; expected "
            + expected);
  }

  static String truncate(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max) + "...";
  }
}
