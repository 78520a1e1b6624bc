package io.fanout.features;

import io.fanout.graph.FeatureTable;
import io.fanout.store.InvalidInputException;

/**
 * Feature rows served from at most {@code bytes} of cached rows in the process, the rest read from
 * disk by {@link FeatureFiles}; {@link CachePolicy} decides which rows stay. Used as the one {@link
 * FeatureTable} of a run: batches are gathered in order, one at a time.
 *
 * <p>With {@link CachePolicy#BELADY} the caller first {@link #plan plans} a window of upcoming
 * batches (their node ids, in the order they will be gathered) and then gathers exactly those
 * batches in that order; every gathered row's next use in the window is then known, and a row whose
 * next use is the furthest (or absent) is evicted, or not admitted at all (Belady's MIN with
 * bypass, optimal for the window). {@link CachePolicy#LRU} and {@link CachePolicy#NONE} need no
 * plan.
 *
 * <p>The cache holds rows as the store encodes them ({@link FeatureFiles#rowBytes} each: 4 bytes a
 * column for {@code f32}, one byte a column group for {@code pq}), so a cache of {@code bytes}
 * holds as many more rows as the encoding is smaller; rows are decoded by the store's decoder as
 * they are gathered, into the caller's buffer, giving the same floats as the memory-mapped store. A
 * gather decodes the hits from the cache, then reads the misses in one {@link FeatureFiles#read}
 * (sorted by offset, on the I/O threads), which decodes them into the output and copies the
 * admitted ones, still encoded, into their slots. Every admitted miss of one gather has its own
 * slot: a slot taken by a miss and then evicted again within the same gather is given up by the
 * earlier miss, so no two I/O threads ever write one slot.
 */
public final class RowCache implements FeatureTable, AutoCloseable {
  private static final long NEVER = Long.MAX_VALUE;

  private final FeatureFiles files;
  private final CachePolicy policy;
  private final int dim;
  private final int capacity;
  private final RowPages data;
  private final int[] slotRow;
  private final IntIntMap slotOf;
  private final SlotHeap heap;
  private int used;
  private long clock;

  // The planned window (belady): node ids in gather order and each access's next use.
  private int[] window = new int[0];
  private long[] nextUse = new long[0];
  private int windowLen;
  private int windowPos;
  private long windowBase;
  private int firstUseCapacity = 16;
  private IntIntMap firstUse = new IntIntMap(firstUseCapacity);

  // Per gather: the misses to read and where they go.
  private int[] missRow = new int[0];
  private int[] missOut = new int[0];
  private int[] missSlot = new int[0];
  private int[] copyFrom = new int[0];
  private int[] copyTo = new int[0];
  private int[] pendingMiss;
  private int[] pendingStamp;
  private int stamp;

  private long hits;
  private long misses;
  private final Turns turns = new Turns();

  /**
   * @param bytes cache size; holds {@code bytes / rowBytes} rows ({@link CachePolicy#NONE}: none)
   */
  public RowCache(FeatureFiles files, CachePolicy policy, long bytes) {
    this.files = files;
    this.policy = policy;
    this.dim = files.dim();
    if (bytes < 0) {
      files.close();
      throw new InvalidInputException(
          "--feature-cache-bytes is " + bytes + "; expected 0 or more bytes");
    }
    long rows = policy == CachePolicy.NONE ? 0 : bytes / files.rowBytes();
    rows = Math.min(rows, files.numVertices());
    this.capacity = (int) rows;
    this.data = files.pages(capacity);
    this.slotRow = new int[capacity];
    this.slotOf = new IntIntMap(capacity);
    this.heap = new SlotHeap(capacity);
    this.pendingMiss = new int[capacity];
    this.pendingStamp = new int[capacity];
  }

  public CachePolicy policy() {
    return policy;
  }

  /** Rows the cache can hold. */
  public int capacityRows() {
    return capacity;
  }

  /** Rows held now. */
  public int residentRows() {
    return used;
  }

  /** Row accesses served from the cache. */
  public long hits() {
    return hits;
  }

  /** Row accesses read from disk. */
  public long misses() {
    return misses;
  }

  /** The order in which concurrent users (loaders opened ahead) take the cache. */
  public Turns turns() {
    return turns;
  }

  /** The disk reader (its counters: reads, rows and bytes read). */
  public FeatureFiles files() {
    return files;
  }

  @Override
  public int numVertices() {
    return files.numVertices();
  }

  @Override
  public int dim() {
    return dim;
  }

  /** Whether {@code row} is held now. */
  public boolean holds(int row) {
    return slotOf.get(row, -1) >= 0;
  }

  /**
   * Plans the next window: the node ids of the upcoming batches, {@code batches[b][0 .. counts[b])}
   * for {@code b < n}, in the order they will be gathered. Only {@link CachePolicy#BELADY} uses it;
   * for the others it is a no-op. Any rest of the previous window is dropped.
   */
  public void plan(int[][] batches, int[] counts, int n) {
    if (policy != CachePolicy.BELADY) {
      return;
    }
    int len = 0;
    for (int b = 0; b < n; b++) {
      len += counts[b];
    }
    if (window.length < len) {
      window = new int[len];
      nextUse = new long[len];
    }
    int at = 0;
    for (int b = 0; b < n; b++) {
      System.arraycopy(batches[b], 0, window, at, counts[b]);
      at += counts[b];
    }
    windowBase += windowPos;
    windowLen = len;
    windowPos = 0;
    if (len > firstUseCapacity) {
      firstUseCapacity = Math.max(len, 2 * firstUseCapacity);
      firstUse = new IntIntMap(firstUseCapacity);
    } else {
      firstUse.clear();
    }
    for (int i = len - 1; i >= 0; i--) {
      int row = window[i];
      int next = firstUse.get(row, -1);
      nextUse[i] = next < 0 ? NEVER : windowBase + next;
      firstUse.put(row, i);
    }
    for (int s = 0; s < used; s++) {
      int first = firstUse.get(slotRow[s], -1);
      heap.set(s, first < 0 ? NEVER : windowBase + first);
    }
  }

  /**
   * Gathers the rows of {@code ids[from .. from+count)} into {@code out} (see {@link
   * FeatureTable#gather}). With {@link CachePolicy#BELADY} they must be the next {@code count} ids
   * of the planned window.
   */
  @Override
  public void gather(int[] ids, int from, int count, float[] out, int outOffset) {
    if (policy == CachePolicy.BELADY && windowPos + count > windowLen) {
      throw new IllegalStateException(
          "gather of " + count + " rows past the planned window (" + windowLen + " rows)");
    }
    ensureMisses(count);
    stamp++;
    int nMiss = 0;
    int nCopy = 0;
    for (int i = 0; i < count; i++) {
      int row = ids[from + i];
      int o = outOffset + i * dim;
      long key = accessKey(row);
      int s = slotOf.get(row, -1);
      if (s >= 0) {
        hits++;
        heap.set(s, key);
        if (pendingStamp[s] == stamp) {
          copyFrom[nCopy] = missOut[pendingMiss[s]];
          copyTo[nCopy++] = o;
        } else {
          data.decode(s, out, o);
        }
        continue;
      }
      misses++;
      missRow[nMiss] = row;
      missOut[nMiss] = o;
      int slot = admit(row, key);
      if (slot >= 0) {
        if (pendingStamp[slot] == stamp) {
          // the slot's previous row was read by an earlier miss of this gather: it goes to the
          // output only, and this miss alone fills the slot
          missSlot[pendingMiss[slot]] = -1;
        }
        pendingStamp[slot] = stamp;
        pendingMiss[slot] = nMiss;
      }
      missSlot[nMiss] = slot;
      nMiss++;
    }
    files.read(missRow, missOut, missSlot, nMiss, out, data);
    for (int c = 0; c < nCopy; c++) {
      System.arraycopy(out, copyFrom[c], out, copyTo[c], dim);
    }
  }

  /** The eviction key the accessed row gets: the larger, the sooner it is evicted. */
  private long accessKey(int row) {
    if (policy == CachePolicy.BELADY) {
      if (window[windowPos] != row) {
        throw new IllegalStateException(
            "gathered row " + row + " but the plan has " + window[windowPos] + " next");
      }
      return nextUse[windowPos++];
    }
    return -(++clock);
  }

  /** A slot for a missed row, evicting if needed; -1 when the row is not kept. */
  private int admit(int row, long key) {
    if (capacity == 0) {
      return -1;
    }
    int s;
    if (used < capacity) {
      s = used++;
    } else {
      s = heap.top();
      if (policy == CachePolicy.BELADY && key >= heap.key(s)) {
        return -1;
      }
      slotOf.remove(slotRow[s]);
    }
    slotRow[s] = row;
    slotOf.put(row, s);
    heap.set(s, key);
    return s;
  }

  private void ensureMisses(int count) {
    if (missRow.length < count) {
      int n = Math.max(count, missRow.length * 2);
      missRow = new int[n];
      missOut = new int[n];
      missSlot = new int[n];
      copyFrom = new int[n];
      copyTo = new int[n];
    }
  }

  @Override
  public void close() {
    files.close();
  }
}
