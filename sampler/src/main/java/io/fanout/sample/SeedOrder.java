package io.fanout.sample;

import io.fanout.graph.VertexTable;
import java.util.Arrays;

/**
 * The per-epoch order of the seed vertices: every vertex of the split, sorted by {@link #sortKey},
 * a hash of (seed, epoch, vertex) with the vertex id in its low 31 bits. Sorting by a per-vertex
 * key (rather than a sequential Fisher-Yates shuffle) lets a distributed sort produce the same
 * order without any task holding the whole split.
 */
public final class SeedOrder {
  private SeedOrder() {}

  /** Split code meaning every vertex. */
  public static final int ALL = -1;

  private static final long LOW31 = 0x7FFFFFFFL;

  /** The sort key of vertex {@code v} in the epoch of {@code epochKey}: distinct per vertex. */
  public static long sortKey(long epochKey, int v) {
    return (SampleHash.mix(epochKey ^ SampleHash.mix(0x5EEDL + v)) & ~LOW31) | v;
  }

  /** Whether a vertex with split code {@code split} is a seed of {@code splitCode}. */
  public static boolean inSplit(int splitCode, byte split) {
    return splitCode == ALL || split == splitCode;
  }

  /** The seeds of {@code splitCode} ({@link #ALL} or a StoreLayout split code) for one epoch. */
  public static int[] order(VertexTable vertices, int splitCode, long seed, int epoch) {
    int n = vertices.numVertices();
    int count = 0;
    for (int v = 0; v < n; v++) {
      if (inSplit(splitCode, vertices.split(v))) {
        count++;
      }
    }
    long epochKey = SampleHash.epochKey(seed, epoch);
    long[] keys = new long[count];
    int k = 0;
    for (int v = 0; v < n; v++) {
      if (inSplit(splitCode, vertices.split(v))) {
        keys[k++] = sortKey(epochKey, v);
      }
    }
    Arrays.sort(keys);
    int[] out = new int[count];
    for (int i = 0; i < count; i++) {
      out[i] = (int) (keys[i] & LOW31);
    }
    return out;
  }

  /**
   * {@code seeds} (distinct dense ids) in the order of {@link #sortKey} for one epoch: the order
   * {@link #order(VertexTable, int, long, int)} gives when {@code seeds} are a split's vertices.
   */
  public static int[] order(int[] seeds, long seed, int epoch) {
    long epochKey = SampleHash.epochKey(seed, epoch);
    long[] keys = new long[seeds.length];
    for (int i = 0; i < seeds.length; i++) {
      keys[i] = sortKey(epochKey, seeds[i]);
    }
    Arrays.sort(keys);
    int[] out = new int[seeds.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = (int) (keys[i] & LOW31);
    }
    return out;
  }

  /** Number of batches of {@code seeds} seeds at {@code batchSize} (the last may be partial). */
  public static int batches(long seeds, int batchSize) {
    long b = (seeds + batchSize - 1) / batchSize;
    if (b > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(seeds + " seeds make too many batches");
    }
    return (int) b;
  }
}
