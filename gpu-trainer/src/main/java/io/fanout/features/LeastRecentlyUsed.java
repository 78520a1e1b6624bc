package io.fanout.features;

import java.util.Arrays;

/**
 * LRU's eviction order: every {@link #set} makes its slot the most recently used, whatever the key
 * (the cache's keys only ever grow more recent), and {@link #top} is the least recently used slot.
 * A doubly linked list over the slots in two {@code int} arrays: each operation a few writes.
 */
final class LeastRecentlyUsed implements EvictionOrder {
  private static final int NONE = -1;

  private final long[] keys;
  private final int[] newer;
  private final int[] older;
  private int newest = NONE;
  private int oldest = NONE;

  LeastRecentlyUsed(int slots) {
    keys = new long[slots];
    newer = new int[slots];
    older = new int[slots];
    Arrays.fill(newer, NONE);
    Arrays.fill(older, NONE);
  }

  @Override
  public void set(int slot, long key) {
    keys[slot] = key;
    if (slot == newest) {
      return;
    }
    if (newer[slot] != NONE) { // held, and not the newest
      unlink(slot);
    }
    older[slot] = newest;
    newer[slot] = NONE;
    if (newest != NONE) {
      newer[newest] = slot;
    } else {
      oldest = slot;
    }
    newest = slot;
  }

  @Override
  public int top() {
    if (oldest == NONE) {
      throw new IllegalStateException("no slot is held");
    }
    return oldest;
  }

  @Override
  public long key(int slot) {
    return keys[slot];
  }

  private void unlink(int slot) {
    int o = older[slot];
    int n = newer[slot];
    if (o != NONE) {
      newer[o] = n;
    } else {
      oldest = n;
    }
    if (n != NONE) {
      older[n] = o;
    } else {
      newest = o;
    }
  }
}
