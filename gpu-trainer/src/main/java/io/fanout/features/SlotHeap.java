package io.fanout.features;

/**
 * An indexed max-heap of cache slots by a long key (the eviction priority: the top is evicted
 * first); a slot's key can be changed in place. The keys sit beside the slots in heap order, so a
 * sift compares neighbours in one array instead of looking each slot's key up.
 */
final class SlotHeap {
  private final int[] heap;
  private final long[] keys;
  private final int[] where;
  private int size;

  SlotHeap(int slots) {
    heap = new int[slots];
    keys = new long[slots];
    where = new int[slots];
    java.util.Arrays.fill(where, -1);
  }

  int size() {
    return size;
  }

  /** The slot with the largest key. */
  int top() {
    return heap[0];
  }

  long key(int slot) {
    return keys[where[slot]];
  }

  /** Inserts {@code slot} or changes its key. */
  void set(int slot, long k) {
    int i = where[slot];
    if (i < 0) {
      i = size++;
      heap[i] = slot;
      keys[i] = k;
      where[slot] = i;
      up(i);
      return;
    }
    long old = keys[i];
    keys[i] = k;
    if (k > old) {
      up(i);
    } else if (k < old) {
      down(i);
    }
  }

  /**
   * Changes the key of {@code slot}, which must be in the heap, without restoring the order: call
   * {@link #heapify} after a run of these (cheaper than {@link #set} when most keys change).
   */
  void assign(int slot, long k) {
    keys[where[slot]] = k;
  }

  /** Restores the heap order after {@link #assign}s, in time linear in the size. */
  void heapify() {
    for (int i = size / 2 - 1; i >= 0; i--) {
      down(i);
    }
  }

  private void up(int i) {
    int s = heap[i];
    long k = keys[i];
    while (i > 0) {
      int p = (i - 1) >>> 1;
      if (keys[p] >= k) {
        break;
      }
      heap[i] = heap[p];
      keys[i] = keys[p];
      where[heap[i]] = i;
      i = p;
    }
    heap[i] = s;
    keys[i] = k;
    where[s] = i;
  }

  private void down(int i) {
    int s = heap[i];
    long k = keys[i];
    while (true) {
      int c = 2 * i + 1;
      if (c >= size) {
        break;
      }
      if (c + 1 < size && keys[c + 1] > keys[c]) {
        c++;
      }
      if (keys[c] <= k) {
        break;
      }
      heap[i] = heap[c];
      keys[i] = keys[c];
      where[heap[i]] = i;
      i = c;
    }
    heap[i] = s;
    keys[i] = k;
    where[s] = i;
  }
}
