package io.fanout.features;

import io.fanout.graph.FeatureTable;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.PageMemory;

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
 *
 * <p>{@link #resolve} serves a backend that reads the rows in place from the cache's {@link
 * PageMemory} (on a GPU, pinned host memory the device reads over the bus): instead of decoding a
 * batch's rows it makes every one of them present in a slot and returns the slots, with the same
 * hits, misses and evictions as {@link #gather}. Rows that are not kept, and cached rows evicted
 * later in the same batch, go to slots after the cache's own (reused by the next batch); a {@link
 * ReadFence} keeps a batch from writing slots before the previous batch was read.
 */
public final class RowCache implements FeatureTable, AutoCloseable {
  private static final long NEVER = EvictionOrder.NEVER;

  private final FeatureFiles files;
  private final CachePolicy policy;
  private final int windowBatches;
  private final int dim;
  private final int capacity;
  private final RowPages data;

  /** The first slot after the cache's own pages: where {@link #resolve} puts uncached rows. */
  private final long firstSpillSlot;

  private final int[] slotRow;
  private final RowSlots slotOf;
  private final EvictionOrder order;

  /** The order of {@link CachePolicy#BELADY}, or null. */
  private final FurthestNextUse furthest;

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
  private int[] lastUse;

  // Per resolve: the misses to read and the slots they go to.
  private int[] missRow = new int[0];
  private int[] missSlot = new int[0];
  private int[] pendingMiss;
  private int[] pendingStamp;
  private int stamp;

  // Per classified batch (gather): the slots it hit, and those it then evicted.
  private final int[] hitStamp;
  private final int[] evictedStamp;
  private static final Classified NONE_AHEAD = new Classified();
  private final Classified classifiedA = new Classified();
  private final Classified classifiedB = new Classified();
  private Classified current = classifiedA;
  private Classified spare = classifiedB;
  private Classified ahead = NONE_AHEAD;

  // The plan's batches (belady): their sizes, the next one to gather, and how many of them are
  // gathered before the next plan (classified ahead up to there).
  private int[] planCounts = new int[0];
  private int planBatch;
  private int planGathered;

  private long hits;
  private long misses;
  private int longestPlanBatches;
  private int longestPlanAccesses;
  private final Turns turns = new Turns();
  private final ReadFence fence = new ReadFence();

  // Per resolve: the row sources of the batch (a miss, or a cached row touched by the batch).
  private int[] srcSlot = new int[0];
  private int[] srcOrigin = new int[0];
  private int[] srcRow = new int[0];

  /**
   * @param bytes cache size; holds {@code bytes / rowBytes} rows ({@link CachePolicy#NONE}: none)
   */
  public RowCache(FeatureFiles files, CachePolicy policy, long bytes) {
    this(files, policy, bytes, PageMemory.HEAP);
  }

  /**
   * As above, with the rows kept in {@code memory} (for {@link #resolve}: memory the batch's reader
   * addresses in place).
   */
  public RowCache(FeatureFiles files, CachePolicy policy, long bytes, PageMemory memory) {
    this(files, policy, bytes, memory, RowCacheSizing.DEFAULT_WINDOW_BATCHES);
  }

  /**
   * As above, with {@code windowBatches} upcoming batches planned at a time by a loader that drives
   * it ({@link RowCacheSizing#AUTO_WINDOW}: as many as its size calls for); only {@link
   * CachePolicy#BELADY} plans.
   */
  public RowCache(
      FeatureFiles files, CachePolicy policy, long bytes, PageMemory memory, int windowBatches) {
    if (windowBatches < 0) {
      files.close();
      throw new InvalidInputException(
          "--feature-cache-window is " + windowBatches + "; expected batches >= 1, or auto");
    }
    this.windowBatches = windowBatches;
    this.files = files;
    this.policy = policy;
    this.dim = files.dim();
    if (bytes < 0) {
      files.close();
      throw new InvalidInputException(
          "--feature-cache-bytes is " + bytes + "; expected 0 or more bytes");
    }
    this.capacity =
        (int) RowCacheSizing.capacityRows(policy, bytes, files.rowBytes(), files.numVertices());
    this.data = files.pages(capacity, memory);
    this.firstSpillSlot = data.endSlot();
    this.slotRow = new int[capacity];
    this.slotOf = RowSlots.of(files.numVertices(), capacity, files.rowBytes());
    this.furthest = policy == CachePolicy.BELADY ? new FurthestNextUse(capacity) : null;
    this.order = furthest != null ? furthest : new LeastRecentlyUsed(capacity);
    this.pendingMiss = new int[capacity];
    this.pendingStamp = new int[capacity];
    this.hitStamp = new int[capacity];
    this.evictedStamp = new int[capacity];
  }

  /**
   * How many upcoming batches a loader plans at a time through this cache, or {@link
   * RowCacheSizing#AUTO_WINDOW}.
   */
  public int windowBatches() {
    return windowBatches;
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

  /** The batches of the longest window {@link #plan} was given. */
  public int longestPlanBatches() {
    return longestPlanBatches;
  }

  /** The accesses of the longest window {@link #plan} was given. */
  public int longestPlanAccesses() {
    return longestPlanAccesses;
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

  /** The fence {@link #resolve} waits on; the reader of resolved slots releases it. */
  public ReadFence fence() {
    return fence;
  }

  /** Whether {@code row} is held now. */
  public boolean holds(int row) {
    return row >= 0 && row < files.numVertices() && slotOf.get(row) >= 0;
  }

  /**
   * Plans the next window: the node ids of the upcoming batches, {@code batches[b][0 .. counts[b])}
   * for {@code b < n}, in the order they will be gathered. Only {@link CachePolicy#BELADY} uses it;
   * for the others it is a no-op. Any rest of the previous window is dropped.
   */
  public void plan(int[][] batches, int[] counts, int n) {
    plan(batches, counts, n, 0);
  }

  /**
   * {@link #plan(int[][], int[], int)}, saying that the caller then gathers (with {@link #gather},
   * not {@link #resolve}) the first {@code gathered} batches of the window, in order, before it
   * plans again: each of them but the first is classified while the one before it is read.
   */
  public void plan(int[][] batches, int[] counts, int n, int gathered) {
    if (policy != CachePolicy.BELADY) {
      return;
    }
    settleAhead();
    if (planCounts.length < n) {
      planCounts = new int[Math.max(n, 2 * planCounts.length)];
    }
    System.arraycopy(counts, 0, planCounts, 0, n);
    planBatch = 0;
    planGathered = Math.min(gathered, n);
    long total = 0;
    for (int b = 0; b < n; b++) {
      total += counts[b];
    }
    if (total > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "a planned window of " + total + " accesses, over 2^31 - 9; plan fewer batches");
    }
    int len = (int) total;
    longestPlanBatches = Math.max(longestPlanBatches, n);
    longestPlanAccesses = Math.max(longestPlanAccesses, len);
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
    furthest.reset(windowBase, len);
    if (lastUse != null || RowCacheSizing.indexesByVertex(files.numVertices(), len)) {
      planByVertex(len);
    } else {
      planByMap(len);
    }
  }

  /**
   * Next uses through {@link #lastUse}: an entry per vertex, the window position of its next use
   * during the pass and -1 otherwise.
   */
  private void planByVertex(int len) {
    int n = files.numVertices();
    if (lastUse == null) {
      lastUse = new int[n];
      java.util.Arrays.fill(lastUse, -1);
    }
    int[] at = lastUse;
    for (int i = len - 1; i >= 0; i--) {
      int row = window[i];
      if (row < 0 || row >= n) {
        for (int j = i + 1; j < len; j++) {
          at[window[j]] = -1;
        }
        throw notAVertex(row, n);
      }
      int next = at[row];
      nextUse[i] = next < 0 ? NEVER : windowBase + next;
      at[row] = i;
    }
    for (int s = 0; s < used; s++) {
      int first = at[slotRow[s]];
      furthest.set(s, first < 0 ? NEVER : windowBase + first);
    }
    for (int i = 0; i < len; i++) {
      at[window[i]] = -1;
    }
  }

  private static InvalidInputException notAVertex(int row, int vertices) {
    return new InvalidInputException(
        "a batch names node "
            + row
            + " but the graph store has "
            + vertices
            + " vertices (ids 0 to "
            + (vertices - 1)
            + "); the shards were not sampled from this store");
  }

  /** Next uses through a hash map of the window's rows. */
  private void planByMap(int len) {
    if (len > firstUseCapacity) {
      firstUseCapacity = Math.max(len, 2 * firstUseCapacity);
      firstUse = new IntIntMap(firstUseCapacity);
    } else {
      firstUse.clear();
    }
    int n = files.numVertices();
    for (int i = len - 1; i >= 0; i--) {
      int row = window[i];
      if (row < 0 || row >= n) {
        throw notAVertex(row, n);
      }
      int next = firstUse.get(row, -1);
      nextUse[i] = next < 0 ? NEVER : windowBase + next;
      firstUse.put(row, i);
    }
    for (int s = 0; s < used; s++) {
      int first = firstUse.get(slotRow[s], -1);
      furthest.set(s, first < 0 ? NEVER : windowBase + first);
    }
  }

  /**
   * Gathers the rows of {@code ids[from .. from+count)} into {@code out} (see {@link
   * FeatureTable#gather}). With {@link CachePolicy#BELADY} they must be the next {@code count} ids
   * of the planned window.
   *
   * <p>The batch is classified first (hits, misses, admissions and evictions: the cache's
   * bookkeeping), unless that was done ahead; its misses are handed to the I/O threads, and while
   * they read, this thread decodes the hits and, when the plan says the next batch is gathered
   * before the next plan ({@link #plan(int[][], int[], int, int)}), classifies it. A hit on a slot
   * the batch itself evicts is decoded before the reads start. The bookkeeping is the same
   * computation in the same order whether done ahead or not, so hits, misses and rows are too.
   */
  @Override
  public void gather(int[] ids, int from, int count, float[] out, int outOffset) {
    Classified c;
    if (ahead.ready) {
      c = takeAhead(ids, from, count);
    } else {
      if (policy == CachePolicy.BELADY && windowPos + count > windowLen) {
        throw new IllegalStateException(
            "gather of " + count + " rows past the planned window (" + windowLen + " rows)");
      }
      checkIds(ids, from, count);
      c = current;
      classify(ids, from, count, c);
    }
    planBatch++;
    for (int h = 0; h < c.nHit; h++) {
      if (evictedStamp[c.hitSlot[h]] == c.stamp) {
        data.decode(c.hitSlot[h], out, outOffset + c.hitOut[h]);
        c.hitOut[h] = -1;
      }
    }
    for (int m = 0; m < c.nMiss; m++) {
      c.missAt[m] = outOffset + c.missOut[m];
    }
    hits += c.hits;
    misses += c.misses;
    FeatureFiles.PendingRead r = files.start(c.missRow, c.missAt, c.missSlot, c.nMiss, out, data);
    try {
      for (int h = 0; h < c.nHit; h++) {
        if (c.hitOut[h] >= 0) {
          data.decode(c.hitSlot[h], out, outOffset + c.hitOut[h]);
        }
      }
      if (planBatch < planGathered) {
        Classified next = c == current ? spare : current;
        classify(window, windowPos, planCounts[planBatch], next);
        ahead = next;
        ahead.ready = true;
      }
    } finally {
      files.finish(r);
    }
    for (int k = 0; k < c.nCopy; k++) {
      System.arraycopy(out, outOffset + c.copyFrom[k], out, outOffset + c.copyTo[k], dim);
    }
  }

  /** The batch classified ahead, checked against the ids the caller gathers. */
  private Classified takeAhead(int[] ids, int from, int count) {
    Classified c = ahead;
    int at = (int) (c.start - windowBase);
    boolean same = c.count == count;
    for (int i = 0; same && i < count; i++) {
      same = ids[from + i] == window[at + i];
    }
    if (!same) {
      throw new IllegalStateException(
          "gathered " + count + " rows that are not the next batch of the plan");
    }
    c.ready = false;
    ahead = NONE_AHEAD;
    current = c;
    spare = c == classifiedA ? classifiedB : classifiedA;
    return c;
  }

  /**
   * The bookkeeping of one batch, {@code ids[from .. from+count)}: each access a hit (decoded later
   * from its slot, or copied from an earlier miss of the batch that took the slot) or a miss (read
   * later, and admitted to a slot or not). Changes the cache's map and order, never its rows.
   */
  private void classify(int[] ids, int from, int count, Classified c) {
    c.ensure(count);
    c.start = windowBase + windowPos;
    c.count = count;
    c.stamp = ++stamp;
    c.nMiss = 0;
    c.nCopy = 0;
    c.nHit = 0;
    c.hits = 0;
    c.misses = 0;
    for (int i = 0; i < count; i++) {
      int row = ids[from + i];
      int o = i * dim;
      long key = accessKey(row);
      int s = slotOf.get(row);
      if (s >= 0) {
        c.hits++;
        order.set(s, key);
        if (pendingStamp[s] == stamp) {
          c.copyFrom[c.nCopy] = c.missOut[pendingMiss[s]];
          c.copyTo[c.nCopy++] = o;
        } else {
          hitStamp[s] = stamp;
          c.hitSlot[c.nHit] = s;
          c.hitOut[c.nHit++] = o;
        }
        continue;
      }
      c.misses++;
      int m = c.nMiss;
      c.missRow[m] = row;
      c.missOut[m] = o;
      int slot = admit(row, key);
      if (slot >= 0) {
        if (hitStamp[slot] == stamp) {
          // a hit of this batch reads the slot's previous row: decoded before the reads start
          evictedStamp[slot] = stamp;
        }
        if (pendingStamp[slot] == stamp) {
          // the slot's previous row was read by an earlier miss of this gather: it goes to the
          // output only, and this miss alone fills the slot
          c.missSlot[pendingMiss[slot]] = -1;
        }
        pendingStamp[slot] = stamp;
        pendingMiss[slot] = m;
      }
      c.missSlot[m] = slot;
      c.nMiss++;
    }
  }

  /**
   * A batch classified ahead but not gathered (the caller planned again first): its admitted rows
   * are read into their slots, so the cache holds the rows its map names.
   */
  private void settleAhead() {
    Classified c = ahead;
    if (!c.ready) {
      return;
    }
    c.ready = false;
    ahead = NONE_AHEAD;
    int n = 0;
    for (int m = 0; m < c.nMiss; m++) {
      if (c.missSlot[m] >= 0) {
        c.missRow[n] = c.missRow[m];
        c.missSlot[n++] = c.missSlot[m];
      }
    }
    hits += c.hits;
    misses += c.misses;
    files.read(c.missRow, null, c.missSlot, n, null, data);
  }

  /** One batch's bookkeeping for {@link #gather}; offsets relative to the batch's first row. */
  private static final class Classified {
    int[] missRow = new int[0];
    int[] missOut = new int[0];
    int[] missAt = new int[0];
    int[] missSlot = new int[0];
    int[] copyFrom = new int[0];
    int[] copyTo = new int[0];
    int[] hitSlot = new int[0];
    int[] hitOut = new int[0];
    int nMiss;
    int nCopy;
    int nHit;
    long hits;
    long misses;
    int stamp;
    long start;
    int count;
    boolean ready;

    void ensure(int count) {
      if (missRow.length < count) {
        int n = Math.max(count, missRow.length * 2);
        missRow = new int[n];
        missOut = new int[n];
        missAt = new int[n];
        missSlot = new int[n];
        copyFrom = new int[n];
        copyTo = new int[n];
        hitSlot = new int[n];
        hitOut = new int[n];
      }
    }
  }

  /**
   * Makes the rows of {@code ids[from .. from+count)} present in the cache's memory and writes the
   * slot of row {@code ids[from + i]} to {@code slots[i]}, for a reader that decodes the rows in
   * place; the next {@link #gather} or {@code resolve} may overwrite them. Counts hits and misses,
   * admits and evicts exactly as {@link #gather} of the same ids would. Before writing any slot it
   * waits on the {@link #fence()} for the previous batch's release.
   *
   * @return the batch's number, to {@link ReadFence#release} once its slots were read
   */
  public long resolve(int[] ids, int from, int count, int[] slots) throws InterruptedException {
    if (policy == CachePolicy.BELADY && windowPos + count > windowLen) {
      throw new IllegalStateException(
          "resolve of " + count + " rows past the planned window (" + windowLen + " rows)");
    }
    if (ahead.ready) {
      throw new IllegalStateException(
          "resolve after a plan that promised gathers; plan with 0 gathered batches");
    }
    checkIds(ids, from, count);
    long k = fence.next(); // first: an interrupted wait leaves the cache as it was
    ensureMisses(count);
    if (srcSlot.length < count) {
      int n = Math.max(count, srcSlot.length * 2);
      srcSlot = new int[n];
      srcOrigin = new int[n];
      srcRow = new int[n];
    }
    stamp++;
    int nSrc = 0;
    for (int i = 0; i < count; i++) {
      int row = ids[from + i];
      long key = accessKey(row);
      int s = slotOf.get(row);
      if (s >= 0) {
        hits++;
        order.set(s, key);
        if (pendingStamp[s] != stamp) {
          srcSlot[nSrc] = s;
          srcOrigin[nSrc] = s;
          pendingStamp[s] = stamp;
          pendingMiss[s] = nSrc++;
        }
        slots[i] = pendingMiss[s];
        continue;
      }
      misses++;
      srcRow[nSrc] = row;
      srcOrigin[nSrc] = -1;
      int slot = admit(row, key);
      if (slot >= 0) {
        if (pendingStamp[slot] == stamp) {
          // the slot's earlier source in this batch (a miss, or a hit on the row it held) moves
          srcSlot[pendingMiss[slot]] = -1;
        }
        pendingStamp[slot] = stamp;
        pendingMiss[slot] = nSrc;
      }
      srcSlot[nSrc] = slot;
      slots[i] = nSrc++;
    }
    long spill = firstSpillSlot;
    int nSpill = 0;
    for (int src = 0; src < nSrc; src++) {
      if (srcSlot[src] < 0) {
        srcSlot[src] = (int) (spill + nSpill++);
      }
    }
    data.ensureSlots(spill + nSpill);
    int nMiss = 0;
    for (int src = 0; src < nSrc; src++) {
      if (srcOrigin[src] < 0) {
        missRow[nMiss] = srcRow[src];
        missSlot[nMiss++] = srcSlot[src];
      } else if (srcSlot[src] != srcOrigin[src]) {
        data.copy(srcOrigin[src], srcSlot[src]); // before a miss overwrites the origin
      }
    }
    files.read(missRow, null, missSlot, nMiss, null, data);
    for (int i = 0; i < count; i++) {
      slots[i] = srcSlot[slots[i]];
    }
    return k;
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
      s = order.top();
      if (policy == CachePolicy.BELADY && key >= order.key(s)) {
        return -1;
      }
      slotOf.remove(slotRow[s]);
    }
    slotRow[s] = row;
    slotOf.put(row, s);
    order.set(s, key);
    return s;
  }

  /**
   * Refuses a batch naming a node outside the store before anything changes (a planned window was
   * checked when it was planned).
   */
  private void checkIds(int[] ids, int from, int count) {
    if (policy == CachePolicy.BELADY) {
      return;
    }
    int n = files.numVertices();
    for (int i = from; i < from + count; i++) {
      if (ids[i] < 0 || ids[i] >= n) {
        throw notAVertex(ids[i], n);
      }
    }
  }

  /** Room for {@code count} misses of a resolve: their rows and slots. */
  private void ensureMisses(int count) {
    if (missRow.length < count) {
      int n = Math.max(count, missRow.length * 2);
      missRow = new int[n];
      missSlot = new int[n];
    }
  }

  @Override
  public void close() {
    files.close();
  }
}
