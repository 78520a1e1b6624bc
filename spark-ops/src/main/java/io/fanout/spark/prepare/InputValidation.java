package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.array_max;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.max;
import static org.apache.spark.sql.functions.min;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.when;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.store.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * The validation steps of {@code prepare}: the edge checks, and the vertex checks together with the
 * per-partition vertex statistics. Each runs its checks in one aggregation and throws the first
 * failed {@link Check}'s error.
 */
final class InputValidation {
  private static final String PART = PrepareJob.PART;
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PrepareJob.class);

  private InputValidation() {}

  /**
   * Checks the edge table (from its Parquet footers where they prove no endpoint is null) and
   * returns its row count.
   */
  static long edges(FanoutConf conf, InputTables in, NormalizedTables t) {
    if (t.nullCheckedEndpoints != null) {
      long rows = InputStats.rowsWithoutNulls(in.edges, t.nullCheckedEndpoints);
      if (rows >= 0) {
        LOG.info(
            "prepare: edge checks passed from the Parquet footers of {}: {} edges, no"
                + " null endpoint",
            in.edgeSource,
            rows);
        return rows;
      }
    }
    long rows = runChecks(in.edgeSource, t.edges, t.edgeChecks, t.edgeSample);
    if (t.edgeSplitColumn != null) {
      EdgeSplitColumn.checkPairsAgree(
          t.edges, in.edgeSource, t.edgeSplitColumn, conf.get(PrepareOptions.UNDIRECTED));
    }
    return rows;
  }

  /** Per-partition vertex counts and table-wide statistics. */
  static final class VertexStats {
    long[] counts;
    int dim;
    long maxLabel = -1;
    long[] splits = new long[4];

    /** The largest class in any label set ({@code labelSets} of {@link #vertices}); -1: none. */
    int maxLabelSetClass = -1;
  }

  static VertexStats vertices(
      FanoutConf conf, InputTables in, NormalizedTables t, Dataset<Row> vertices, int parts) {
    return vertices(in.vertexSource, t.vertexNormalization, vertices, parts, null);
  }

  /**
   * Runs the checks of {@code norm} and counts the vertices per partition ({@code vertices} is
   * {@code norm}'s table with a {@code _part} column) in one aggregation; {@code source} names the
   * table in errors. With {@code labelSets} (a column of class arrays, or null) the same
   * aggregation also finds the largest class in them.
   */
  static VertexStats vertices(
      String source, VertexNormalization norm, Dataset<Row> vertices, int parts, String labelSets) {
    List<Column> aggs = new ArrayList<>();
    aggs.add(count(lit(1)).as("n"));
    aggs.add(max(col(NormalizedTables.LABEL)).as("max_label"));
    for (int s = 0; s < 4; s++) {
      aggs.add(sum(when(col(NormalizedTables.SPLIT).equalTo(lit((byte) s)), 1L).otherwise(0L)));
    }
    if (norm.hasFeatures) {
      aggs.add(min(size(col(NormalizedTables.FEAT))).as("dmin"));
      aggs.add(max(size(col(NormalizedTables.FEAT))).as("dmax"));
    }
    int checksAt = aggs.size();
    for (Check c : norm.checks) {
      aggs.add(c.counter());
    }
    int labelSetsAt = aggs.size();
    if (labelSets != null) {
      aggs.add(max(array_max(col(labelSets))));
    }
    List<Row> rows =
        vertices
            .groupBy(col(PART))
            .agg(aggs.get(0), aggs.subList(1, aggs.size()).toArray(new Column[0]))
            .collectAsList();
    VertexStats vs = new VertexStats();
    vs.counts = new long[parts];
    long[] failures = new long[norm.checks.size()];
    int dmin = Integer.MAX_VALUE;
    int dmax = Integer.MIN_VALUE;
    long total = 0;
    for (Row r : rows) {
      int p = r.isNullAt(0) ? -1 : r.getInt(0);
      long n = r.getLong(1);
      total += n;
      for (int i = 0; i < failures.length; i++) {
        failures[i] += r.getLong(1 + checksAt + i);
      }
      if (labelSets != null && !r.isNullAt(1 + labelSetsAt)) {
        vs.maxLabelSetClass = Math.max(vs.maxLabelSetClass, r.getInt(1 + labelSetsAt));
      }
      if (p < 0 || p >= parts) {
        continue; // null ids: reported by the checks below
      }
      vs.counts[p] = n;
      if (!r.isNullAt(2)) {
        vs.maxLabel = Math.max(vs.maxLabel, r.getInt(2));
      }
      for (int s = 0; s < 4; s++) {
        vs.splits[s] += r.getLong(3 + s);
      }
      if (norm.hasFeatures && !r.isNullAt(7)) {
        dmin = Math.min(dmin, r.getInt(7));
        dmax = Math.max(dmax, r.getInt(8));
      }
    }
    if (total == 0) {
      throw new InvalidInputException(
          source + ": the vertex table is empty; expected at least one vertex");
    }
    for (int i = 0; i < failures.length; i++) {
      if (failures[i] > 0) {
        throw norm.checks.get(i).error(source, norm.vertices, norm.sample, failures[i]);
      }
    }
    if (norm.hasFeatures && dmin != dmax) {
      String featCol = norm.featuresColumn;
      Check c =
          new Check(
              featCol,
              "feature arrays of differing length (lengths from " + dmin + " to " + dmax + ")",
              "every feature array of length " + dmax,
              size(col(NormalizedTables.FEAT)).notEqual(dmax));
      List<Column> sample = new ArrayList<>(norm.sample);
      sample.add(size(col(NormalizedTables.FEAT)).as("feature_length"));
      long bad = norm.vertices.where(c.bad).count();
      throw c.error(source, norm.vertices, sample, bad);
    }
    vs.dim = norm.hasFeatures ? Math.max(dmax, 0) : 0;
    return vs;
  }

  /** Runs the checks in one aggregation, which also counts the rows; returns the count. */
  static long runChecks(
      String source, Dataset<Row> table, List<Check> checks, List<Column> sample) {
    Column[] aggs = new Column[checks.size()];
    for (int i = 0; i < aggs.length; i++) {
      aggs[i] = checks.get(i).counter();
    }
    Row r = table.agg(count(lit(1)), aggs).first();
    for (int i = 0; i < aggs.length; i++) {
      long n = r.isNullAt(i + 1) ? 0 : r.getLong(i + 1);
      if (n > 0) {
        throw checks.get(i).error(source, table, sample, n);
      }
    }
    return r.getLong(0);
  }
}
