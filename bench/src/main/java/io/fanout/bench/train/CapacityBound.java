package io.fanout.bench.train;

import io.fanout.features.OfflineMin;
import java.util.Arrays;

/**
 * A lower bound on the rows any cache of a given number of rows reads for a sequence of batches
 * whose rows are distinct within each batch, from the cache's size alone.
 *
 * <p>Within such a batch a row is asked for once, so a row read during the batch is not asked for
 * again in it: every hit of batch {@code b} is a row held when the batch starts. At most {@code
 * capacity} rows are held then, and only rows asked for by earlier batches. So batch {@code b}
 * reads at least {@code size(b) - min(capacity, seen(b))} rows, where {@code seen(b)} counts its
 * rows that an earlier batch asked for. The sum over the batches bounds every policy, the offline
 * optimum ({@link OfflineMin}) included, whatever its window. Where the optimum reaches this bound,
 * each batch hits as many rows as the cache holds (or all its earlier-seen rows): the cache's size,
 * not the choice of rows to keep, is what limits it.
 */
public final class CapacityBound {
  private CapacityBound() {}

  /**
   * The bound for {@code batches} batches laid end to end in {@code seq}, batch {@code b} of {@code
   * counts[b]} rows, ids in {@code [0, numVertices)}.
   *
   * @throws IllegalArgumentException where a batch asks for a row twice, naming the batch and the
   *     row, or where the counts run past {@code seq}
   */
  public static long rowsRead(
      int[] seq, int[] counts, int batches, int numVertices, long capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity " + capacity + " rows, expected >= 0");
    }
    int[] lastBatch = new int[numVertices];
    Arrays.fill(lastBatch, -1);
    long reads = 0;
    long pos = 0;
    for (int b = 0; b < batches; b++) {
      int size = counts[b];
      if (size < 0 || pos + size > seq.length) {
        throw new IllegalArgumentException(
            "batch " + b + " of " + size + " rows runs past the " + seq.length + " accesses");
      }
      int start = (int) pos;
      long seen = 0;
      for (int i = start; i < start + size; i++) {
        int row = seq[i];
        int last = lastBatch[row];
        if (last == b) {
          throw new IllegalArgumentException(
              "batch " + b + " asks for row " + row + " twice; batches hold distinct rows");
        }
        if (last >= 0) {
          seen++;
        }
        lastBatch[row] = b;
      }
      reads += size - Math.min(capacity, seen);
      pos += size;
    }
    return reads;
  }
}
