package io.fanout.features;

/**
 * An indexed max-heap of cache slots by a long key (the eviction priority: the top is evicted
 * first), in int and long arrays; a slot's key can be changed in place.
 */
final class SlotHeap {
  private final int[] heap;
  private final int[] where;
  private final long[] key;
  private int size;

  SlotHeap(int slots) {
    heap = new int[slots];
    where = new int[slots];
    key = new long[slots];
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
    return key[slot];
  }

  /** Inserts {@code slot} or changes its key. */
  void set(int slot, long k) {
    int i = where[slot];
    if (i < 0) {
      i = size++;
      heap[i] = slot;
      where[slot] = i;
      key[slot] = k;
      up(i);
      return;
    }
    long old = key[slot];
    key[slot] = k;
    if (k > old) {
      up(i);
    } else if (k < old) {
      down(i);
    }
  }

  private void up(int i) {
    int s = heap[i];
    long k = key[s];
    while (i > 0) {
      int p = (i - 1) >>> 1;
      if (key[heap[p]] >= k) {
        break;
      }
      heap[i] = heap[p];
      where[heap[i]] = i;
      i = p;
    }
    heap[i] = s;
    where[s] = i;
  }

  private void down(int i) {
    int s = heap[i];
    long k = key[s];
    while (true) {
      int c = 2 * i + 1;
      if (c >= size) {
        break;
      }
      if (c + 1 < size && key[heap[c + 1]] > key[heap[c]]) {
        c++;
      }
      if (key[heap[c]] <= k) {
        break;
      }
      heap[i] = heap[c];
      where[heap[i]] = i;
      i = c;
    }
    heap[i] = s;
    where[s] = i;
  }
}
