package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.countDistinct;
import static org.apache.spark.sql.functions.greatest;
import static org.apache.spark.sql.functions.least;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.lower;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.trim;
import static org.apache.spark.sql.functions.when;

import io.fanout.conf.options.PrepareOptions;
import io.fanout.store.InvalidInputException;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * {@code prepare --edge-split-column C}: each edge's split read from a column of the edge table
 * ({@code train}, {@code val} or {@code test}, case and surrounding blanks ignored) instead of
 * drawn from {@code --edge-split} fractions. Bad values are refused by the edge checks (naming the
 * table, the column and a sample row); edges of one pair that disagree (the two directions of an
 * undirected pair, or repeated edges) are refused by {@link #checkPairsAgree}, since one pair held
 * out and kept in training would leak.
 */
final class EdgeSplitColumn {
  /** The normalized split code column of the edges (0 train, 1 val, 2 test; null when bad). */
  static final String CODE = "_es";

  private static final String EXPECTED = "train, val or test as the edge's split";

  private EdgeSplitColumn() {}

  /** The split code of the raw column {@code raw}: null for a value other than the three. */
  static Column code(Column raw) {
    Column v = lower(trim(raw.cast("string")));
    return when(v.equalTo(lit("train")), lit(EdgeSplitPlan.TRAIN))
        .when(v.equalTo(lit("val")), lit(EdgeSplitPlan.VAL))
        .when(v.equalTo(lit("test")), lit(EdgeSplitPlan.TEST));
  }

  /** Adds the checks refusing null values and values other than train, val, test. */
  static void addChecks(List<Check> checks, String column, Column raw) {
    checks.add(new Check(column, "a null split", EXPECTED, raw.isNull()));
    checks.add(
        new Check(
            column,
            "a split other than train, val, test",
            EXPECTED,
            raw.isNotNull().and(code(raw).isNull())));
  }

  /**
   * Refuses edges of one pair with different splits: {@code (src, dst)}, unordered when {@code
   * undirected}. Runs on the normalized, checked edges ({@link NormalizedTables#SRC}, {@link
   * NormalizedTables#DST}, {@link #CODE}).
   *
   * @throws InvalidInputException naming the table, the column, one such pair and its two values
   */
  static void checkPairsAgree(
      Dataset<Row> edges, String source, String column, boolean undirected) {
    Column s = col(NormalizedTables.SRC);
    Column d = col(NormalizedTables.DST);
    Column raw = trim(col("`" + column.replace("`", "``") + "`").cast("string"));
    List<Row> bad =
        edges
            .select(
                (undirected ? least(s, d) : s).as("a"),
                (undirected ? greatest(s, d) : d).as("b"),
                col(CODE).as("c"),
                raw.as("v"))
            .groupBy(col("a"), col("b"))
            .agg(countDistinct(col("c")).as("k"), min(col("v")).as("lo"), max(col("v")).as("hi"))
            .where(col("k").gt(lit(1L)))
            .orderBy(col("a"), col("b"))
            .limit(1)
            .collectAsList();
    if (bad.isEmpty()) {
      return;
    }
    Row r = bad.get(0);
    throw new InvalidInputException(
        source
            + ": column '"
            + column
            + "' (--"
            + PrepareOptions.EDGE_SPLIT_COLUMN.name()
            + "): the edges between "
            + r.get(0)
            + " and "
            + r.get(1)
            + (undirected ? " (either direction)" : "")
            + " have splits '"
            + r.getString(3)
            + "' and '"
            + r.getString(4)
            + "'; expected every edge of a pair in the same split");
  }
}
