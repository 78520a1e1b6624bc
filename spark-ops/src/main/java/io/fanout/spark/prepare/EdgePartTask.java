package io.fanout.spark.prepare;

import io.fanout.store.CsrFileWriter;
import io.fanout.store.StoreLayout;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Writes the {@code csr/} part files of the store partitions a task holds, and returns one small
 * metadata row per partition: {@code (part, edges, deg_min, deg_max, dangling, sample)}.
 *
 * <p>Input rows are {@code (_part, _dd, _sd, _orig)} sorted by {@code (_part, _dd, _sd)}: edge
 * {@code _sd -> _dd} in dense ids, i.e. in-neighbor {@code _sd} of row {@code _dd}. Rows with
 * {@code _part = -1} are dangling edges (an endpoint is not a vertex; {@code _orig} shows it): they
 * are counted, not written. With {@code dedupe}, repeated neighbors of a row (adjacent after the
 * sort) are written once.
 */
final class EdgePartTask implements MapPartitionsFunction<Row, Row> {
  private static final long serialVersionUID = 1L;

  static final StructType OUTPUT =
      new StructType()
          .add("part", DataTypes.IntegerType)
          .add("edges", DataTypes.LongType)
          .add("deg_min", DataTypes.LongType)
          .add("deg_max", DataTypes.LongType)
          .add("dangling", DataTypes.LongType)
          .add("sample", DataTypes.StringType);

  private final String staging;
  private final long[] firsts;
  private final long[] counts;
  private final boolean dedupe;

  EdgePartTask(String staging, long[] firsts, long[] counts, boolean dedupe) {
    this.staging = staging;
    this.firsts = firsts;
    this.counts = counts;
    this.dedupe = dedupe;
  }

  @Override
  public Iterator<Row> call(Iterator<Row> input) {
    List<Row> out = new ArrayList<>();
    Path root = Paths.get(staging);
    long dangling = 0;
    String sample = null;
    int part = -2;
    CsrFileWriter csr = null;
    Path attempt = null;
    long row = 0;
    long n = 0;
    long first = 0;
    long prevSrc = -1;
    long rowStartEdges = 0;
    long degMin = Long.MAX_VALUE;
    long degMax = 0;
    while (input.hasNext()) {
      Row r = input.next();
      int p = r.getInt(0);
      if (p < 0) {
        dangling++;
        if (sample == null) {
          sample = r.getString(2);
        }
        continue;
      }
      if (p != part) {
        if (csr != null) {
          out.add(finish(csr, attempt, root, part, row, n, rowStartEdges, degMin, degMax));
        }
        part = p;
        first = firsts[p];
        n = counts[p];
        attempt = PartFiles.attemptFile(root.resolve(StoreLayout.csrFile(p)));
        csr = new CsrFileWriter(attempt, p, first, n);
        row = 0;
        prevSrc = -1;
        rowStartEdges = 0;
        degMin = Long.MAX_VALUE;
        degMax = 0;
      }
      long key = r.getLong(1);
      long local = (key >>> 32) - first;
      while (row < local) {
        long d = csr.edgesWritten() - rowStartEdges;
        degMin = Math.min(degMin, d);
        degMax = Math.max(degMax, d);
        csr.endRow();
        rowStartEdges = csr.edgesWritten();
        row++;
        prevSrc = -1;
      }
      int src = (int) key;
      if (dedupe && src == prevSrc) {
        continue;
      }
      csr.addNeighbor(src);
      prevSrc = src;
    }
    if (csr != null) {
      out.add(finish(csr, attempt, root, part, row, n, rowStartEdges, degMin, degMax));
    }
    if (dangling > 0) {
      out.add(RowFactory.create(-1, 0L, 0L, 0L, dangling, sample));
    }
    return out.iterator();
  }

  private static Row finish(
      CsrFileWriter csr,
      Path attempt,
      Path root,
      int part,
      long row,
      long n,
      long rowStartEdges,
      long degMin,
      long degMax) {
    while (row < n) {
      long d = csr.edgesWritten() - rowStartEdges;
      degMin = Math.min(degMin, d);
      degMax = Math.max(degMax, d);
      csr.endRow();
      rowStartEdges = csr.edgesWritten();
      row++;
    }
    long edges = csr.edgesWritten();
    csr.finish();
    PartFiles.commit(attempt, root.resolve(StoreLayout.csrFile(part)));
    return RowFactory.create(part, edges, n == 0 ? 0L : degMin, degMax, 0L, null);
  }
}
