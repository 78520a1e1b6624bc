package io.fanout.spark.prepare;

import io.fanout.store.CsrFileWriter;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.WeightFileWriter;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Writes the {@code csr/} (and, weighted, {@code weights/}) part files of the store partitions a
 * task holds, and returns one small metadata row per partition: {@code (part, edges, deg_min,
 * deg_max, dangling, sample)}.
 *
 * <p>Input rows are {@code (_part, _dd << 32 | _sd, _orig[, _weight])} ({@code _weight} only for
 * weighted stores) sorted by {@code (_part, _dd, _sd[, _weight])}: edge {@code _sd -> _dd} in dense
 * ids, i.e. in-neighbor {@code _sd} of row {@code _dd}. Rows with {@code _part = -1} are dangling
 * edges (an endpoint is not a vertex; {@code _orig} shows it): they are counted, not written. With
 * {@code dedupe}, repeated neighbors of a row (adjacent after the sort) are written once, weighing
 * the sum of their weights (summed in double in ascending weight order, so the result does not
 * depend on the shuffle).
 *
 * <p>It reads Spark's internal rows (the plan's {@code toRdd}), so no value is boxed and no object
 * is allocated per edge.
 */
final class EdgePartTask implements FlatMapFunction<Iterator<InternalRow>, Row> {
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

  /** The weight column's name in the input, for errors; null when the store is unweighted. */
  private final String weightColumn;

  EdgePartTask(String staging, long[] firsts, long[] counts, boolean dedupe, String weightColumn) {
    this.staging = staging;
    this.firsts = firsts;
    this.counts = counts;
    this.dedupe = dedupe;
    this.weightColumn = weightColumn;
  }

  @Override
  public Iterator<Row> call(Iterator<InternalRow> input) {
    List<Row> out = new ArrayList<>();
    Path root = Paths.get(staging);
    long dangling = 0;
    String sample = null;
    int part = -2;
    CsrFileWriter csr = null;
    Path attempt = null;
    Weights weights = null;
    long row = 0;
    long n = 0;
    long first = 0;
    long prevSrc = -1;
    long rowStartEdges = 0;
    long degMin = Long.MAX_VALUE;
    long degMax = 0;
    while (input.hasNext()) {
      InternalRow r = input.next();
      int p = r.getInt(0);
      if (p < 0) {
        dangling++;
        if (sample == null) {
          sample = r.isNullAt(2) ? null : r.getUTF8String(2).toString();
        }
        continue;
      }
      if (p != part) {
        if (csr != null) {
          out.add(finish(csr, attempt, root, part, row, n, rowStartEdges, degMin, degMax));
          if (weights != null) {
            weights.finish(root, part);
          }
        }
        part = p;
        first = firsts[p];
        n = counts[p];
        attempt = PartFiles.attemptFile(root.resolve(StoreLayout.csrFile(p)));
        csr = new CsrFileWriter(attempt, p, first, n);
        if (weightColumn != null) {
          weights = new Weights(root, p, first, n);
        }
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
        if (weights != null) {
          weights.addToLast(r.getFloat(3));
        }
        continue;
      }
      csr.addNeighbor(src);
      if (weights != null) {
        weights.add(r.getFloat(3), key);
      }
      prevSrc = src;
    }
    if (csr != null) {
      out.add(finish(csr, attempt, root, part, row, n, rowStartEdges, degMin, degMax));
      if (weights != null) {
        weights.finish(root, part);
      }
    }
    if (dangling > 0) {
      out.add(RowFactory.create(-1, 0L, 0L, 0L, dangling, sample));
    }
    return out.iterator();
  }

  /**
   * The {@code weights/} file of one partition, one entry behind the CSR: the last entry's weight
   * is written when the next comes (or at the end), so that {@code --dedupe} can add to it.
   */
  private final class Weights {
    private final WeightFileWriter writer;
    private final Path attempt;
    private double pending;
    private long pendingKey;
    private boolean hasPending;

    Weights(Path root, int p, long first, long n) {
      attempt = PartFiles.attemptFile(root.resolve(StoreLayout.weightsFile(p)));
      writer = new WeightFileWriter(attempt, p, first, n);
    }

    void add(float w, long key) {
      flush();
      pending = w;
      pendingKey = key;
      hasPending = true;
    }

    void addToLast(float w) {
      pending += w;
    }

    private void flush() {
      if (!hasPending) {
        return;
      }
      float w = (float) pending;
      if (Float.isInfinite(w)) {
        throw new InvalidInputException(
            "edges: column '"
                + weightColumn
                + "': the weights of the repeated edge "
                + (int) pendingKey
                + " -> "
                + (pendingKey >>> 32)
                + " (dense ids) sum to "
                + pending
                + ", beyond float32 range; expected --dedupe sums below "
                + Float.MAX_VALUE
                + " (scale the weights down)");
      }
      writer.add(w);
      hasPending = false;
    }

    void finish(Path root, int p) {
      flush();
      writer.finish();
      PartFiles.commit(attempt, root.resolve(StoreLayout.weightsFile(p)));
    }
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
