package io.fanout.spark.prepare;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.options.DanglingPolicy;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.store.InvalidInputException;
import java.util.List;
import org.apache.spark.sql.Row;

/**
 * What the csr-writing {@link EdgePartTask}s reported, summed over their metadata rows {@code
 * (partition, edges, min degree, max degree, dangling, dangling sample)}: a row with a negative
 * partition reports dangling edges only.
 */
final class CsrReport {
  long dangling;
  String danglingSample;
  final long[] edgesPerPart;
  final boolean[] written;
  long degMin = Long.MAX_VALUE;
  long degMax;

  private CsrReport(int parts) {
    edgesPerPart = new long[parts];
    written = new boolean[parts];
  }

  /**
   * Sums {@code meta}; the degree range covers the partitions with vertices ({@code counts[p] >
   * 0}).
   */
  static CsrReport of(List<Row> meta, long[] counts, int parts) {
    CsrReport r = new CsrReport(parts);
    for (Row row : meta) {
      int p = row.getInt(0);
      if (p < 0) {
        r.dangling += row.getLong(4);
        if (r.danglingSample == null) {
          r.danglingSample = row.getString(5);
        }
        continue;
      }
      r.written[p] = true;
      r.edgesPerPart[p] = row.getLong(1);
      if (counts[p] > 0) {
        r.degMin = Math.min(r.degMin, row.getLong(2));
        r.degMax = Math.max(r.degMax, row.getLong(3));
      }
    }
    return r;
  }

  /** Fails when edges dangled and {@code --dangling error}. */
  void requireNoDangling(FanoutConf conf, String edgeSource) {
    requireNoDangling(
        conf,
        edgeSource,
        conf.get(PrepareOptions.SRC_COLUMN),
        conf.get(PrepareOptions.DST_COLUMN),
        "the vertex table");
  }

  /**
   * Fails when edges dangled and {@code --dangling error}, naming the edge table's endpoint columns
   * and where the endpoints should be ({@code vertices}).
   */
  void requireNoDangling(
      FanoutConf conf, String edgeSource, String srcColumn, String dstColumn, String vertices) {
    if (dangling > 0 && conf.get(PrepareOptions.DANGLING) == DanglingPolicy.ERROR) {
      throw new InvalidInputException(
          edgeSource
              + ": columns '"
              + srcColumn
              + "'/'"
              + dstColumn
              + "': "
              + dangling
              + " edge(s) with an endpoint that is not a vertex id, e.g. edge "
              + danglingSample
              + "; expected every endpoint in "
              + vertices
              + " (--dangling drop drops them)");
    }
  }
}
