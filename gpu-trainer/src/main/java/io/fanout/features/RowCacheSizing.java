package io.fanout.features;

/**
 * The sizes of a {@link RowCache} as options give them and as memory bounds need them: its planning
 * window (default, {@code auto}, the most batches, and its parser), the rows a cache of a number of
 * bytes holds, and the heap it takes besides its rows.
 */
public final class RowCacheSizing {
  private RowCacheSizing() {}

  /** {@link RowCache#windowBatches()} by default: 32 batches. */
  public static final int DEFAULT_WINDOW_BATCHES = 32;

  /** A {@link RowCache#windowBatches()} that grows with the cache's size. */
  public static final int AUTO_WINDOW = 0;

  /** The most batches a fixed {@link RowCache#windowBatches()} may be set to by the options. */
  public static final int MAX_WINDOW_BATCHES = 4096;

  /**
   * A planning window as options spell it: {@code 1} to {@link #MAX_WINDOW_BATCHES} batches, or
   * {@code auto} ({@link #AUTO_WINDOW}).
   *
   * @throws IllegalArgumentException saying what was expected
   */
  public static int parseWindowBatches(String raw) {
    String v = raw.trim();
    if (v.equalsIgnoreCase("auto")) {
      return AUTO_WINDOW;
    }
    try {
      int w = Integer.parseInt(v);
      if (w >= 1 && w <= MAX_WINDOW_BATCHES) {
        return w;
      }
    } catch (NumberFormatException e) {
      // the message below says what was expected
    }
    throw new IllegalArgumentException(
        "expected a number of batches from 1 to " + MAX_WINDOW_BATCHES + ", or auto");
  }

  /**
   * Rows a cache of {@code bytes} holds: whole rows of {@code rowBytes}, at most the store's {@code
   * vertices}; none for {@link CachePolicy#NONE}.
   */
  public static long capacityRows(CachePolicy policy, long bytes, int rowBytes, long vertices) {
    return policy == CachePolicy.NONE ? 0 : Math.min(vertices, bytes / Math.max(1, rowBytes));
  }

  /**
   * The heap a cache holds besides its rows, at the least, once it has served batches of {@code
   * batchRows} rows: per slot its row id, its eviction order's key and links and its pending-read
   * marks (28 bytes), plus the slot index ({@link RowSlots}: 4 bytes a vertex where that is at most
   * the rows' bytes, else a map of at least 16 bytes a slot); per batch row the arrays of one
   * gather or resolve (its misses, or its misses and row sources: 20 bytes); and for {@link
   * CachePolicy#BELADY}, per access of a planned window of {@code windowAccesses}, its node id,
   * next use and position (16 bytes), plus the next-use index: 4 bytes a vertex, or 16 bytes an
   * access in a map, whichever {@link #indexesByVertex} picks.
   *
   * @param capacityRows rows the cache holds ({@code bytes / rowBytes}, at most {@code vertices})
   */
  public static long heapBesideRows(
      CachePolicy policy,
      long capacityRows,
      int rowBytes,
      long vertices,
      long batchRows,
      long windowAccesses) {
    long slots = policy == CachePolicy.NONE ? 0 : Math.min(capacityRows, vertices);
    long index = RowSlots.byVertex(vertices, slots, rowBytes) ? 4 * vertices : 16 * slots;
    long bytes = 28 * slots + index + 20 * batchRows;
    if (policy == CachePolicy.BELADY) {
      bytes +=
          16 * windowAccesses
              + (indexesByVertex(vertices, windowAccesses) ? 4 * vertices : 16 * windowAccesses);
    }
    return bytes;
  }

  /**
   * Whether a window of {@code len} accesses finds its rows' next uses in an array indexed by
   * vertex (4 bytes a vertex) rather than in a hash map of its rows (16 to 32 bytes an access, and
   * each probe a cache miss once the window outgrows the CPU's caches): when the array is the
   * smaller. Once allocated, the array serves every later window.
   */
  static boolean indexesByVertex(long vertices, long len) {
    return vertices <= 4 * len;
  }
}
