package io.fanout.store;

import java.util.Arrays;

/**
 * Orders edge keys {@code dst << 32 | src} (dense ids, both non-negative ints) by destination, then
 * source: the order of the keys as longs, reached by a counting sort on the destination over the
 * range of destinations seen, then a sort of each destination's sources. Work is linear in the keys
 * and the destination range, plus small per-row sorts; no object is allocated per key.
 *
 * <p>Memory: 8 bytes a key while collecting; while sorting, 4 bytes a key plus 4 bytes a
 * destination in the range (the collected keys are released before the per-row sorts). Nothing
 * spills: callers bound the keys of one sort (one store partition's edges).
 *
 * <pre>{@code
 * EdgeKeySort s = new EdgeKeySort();
 * for (each edge) s.add(dst << 32 | src);
 * s.sort();
 * for (long v = s.minDestination(); v <= s.maxDestination(); v++)
 *   for (int i = s.rowStart(v); i < s.rowEnd(v); i++) use(v, s.source(i));
 * }</pre>
 */
public final class EdgeKeySort {
  /** The most keys one sort holds: the largest Java array. */
  public static final int MAX_KEYS = Integer.MAX_VALUE - 8;

  private final long maxBytes;
  private long[] keys = new long[1 << 10];
  private int size;
  private long minDst = Long.MAX_VALUE;
  private long maxDst = -1;
  private int[] offsets;
  private int[] sources;

  /** Thrown by {@link #add} when the key buffer may not grow: past the byte budget or 2^30 keys. */
  public static final class TooLarge extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    TooLarge(String message) {
      super(message);
    }
  }

  /** A sort without a byte budget (bounded only by the largest array). */
  public EdgeKeySort() {
    this(Long.MAX_VALUE);
  }

  /**
   * A sort whose key buffer refuses to grow when the doubling would hold more than {@code maxBytes}
   * ({@link #peakBytes} of the keys so far): the sort does not spill, so callers bound it.
   */
  public EdgeKeySort(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /**
   * Adds the edge {@code src -> dst} as {@code dst << 32 | src}.
   *
   * @throws TooLarge when the key buffer is full and may not grow
   * @throws IllegalStateException after {@link #sort()}
   */
  public void add(long key) {
    if (sources != null) {
      throw new IllegalStateException("add after sort");
    }
    if (size == keys.length) {
      grow();
    }
    keys[size++] = key;
    long dst = key >>> 32;
    if (dst < minDst) {
      minDst = dst;
    }
    if (dst > maxDst) {
      maxDst = dst;
    }
  }

  private void grow() {
    long need = peakBytes(size, 0); // the full buffer and one twice its size
    if (need > maxBytes || size > MAX_KEYS / 2) {
      throw new TooLarge(
          size
              + " keys so far need about "
              + (need >> 20)
              + " MiB to go on, over the budget of "
              + (maxBytes >> 20)
              + " MiB"
              + (size > MAX_KEYS / 2 ? " or past the largest array" : ""));
    }
    keys = Arrays.copyOf(keys, 2 * keys.length);
  }

  /**
   * An upper bound of the heap bytes a sort of {@code edges} keys over {@code rows} destinations
   * holds at its peak: the key buffer's last doubling (8 + 16 bytes a key), or the sort (at most 16
   * bytes a key of buffer, 4 a key of sources, 4 a destination of offsets).
   */
  public static long peakBytes(long edges, long rows) {
    return Math.max(24 * edges, 20 * edges + 8 * (rows + 1));
  }

  /** Keys added. */
  public int size() {
    return size;
  }

  /** Sorts the keys; afterwards only the read methods may be called. */
  public void sort() {
    if (sources != null) {
      return;
    }
    if (size == 0) {
      sources = new int[0];
      offsets = new int[1];
      keys = null;
      return;
    }
    long range = maxDst - minDst + 1;
    if (range >= MAX_KEYS) {
      throw new IllegalStateException(
          "destinations "
              + minDst
              + ".."
              + maxDst
              + " span more than "
              + MAX_KEYS
              + " rows in one sort; expected one store partition's rows");
    }
    int rows = (int) range;
    int[] start = new int[rows + 1];
    long base = minDst;
    for (int i = 0; i < size; i++) {
      start[(int) ((keys[i] >>> 32) - base) + 1]++;
    }
    for (int r = 0; r < rows; r++) {
      start[r + 1] += start[r];
    }
    int[] next = Arrays.copyOf(start, rows);
    int[] src = new int[size];
    for (int i = 0; i < size; i++) {
      long k = keys[i];
      src[next[(int) ((k >>> 32) - base)]++] = (int) k;
    }
    keys = null;
    for (int r = 0; r < rows; r++) {
      if (start[r + 1] - start[r] > 1) {
        Arrays.sort(src, start[r], start[r + 1]);
      }
    }
    offsets = start;
    sources = src;
  }

  /** The smallest destination added; {@code Long.MAX_VALUE} when none was. */
  public long minDestination() {
    return minDst;
  }

  /** The largest destination added; -1 when none was. */
  public long maxDestination() {
    return maxDst;
  }

  /** Index of the first source of destination {@code dst} (after {@link #sort()}). */
  public int rowStart(long dst) {
    return dst < minDst || dst > maxDst ? 0 : offsets[(int) (dst - minDst)];
  }

  /** Index after the last source of destination {@code dst} (after {@link #sort()}). */
  public int rowEnd(long dst) {
    return dst < minDst || dst > maxDst ? 0 : offsets[(int) (dst - minDst) + 1];
  }

  /** The {@code i}-th source in sorted order (after {@link #sort()}). */
  public int source(int i) {
    return sources[i];
  }
}
