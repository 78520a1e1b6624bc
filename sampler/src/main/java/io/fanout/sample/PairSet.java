package io.fanout.sample;

import java.util.Arrays;

/**
 * A set of unordered vertex pairs {u, v} (open addressing over {@code min << 32 | max}), cleared
 * and refilled per batch: the edges a link-prediction batch must not sample.
 */
public final class PairSet {
  private static final long EMPTY = -1L;
  private long[] slots = new long[64];
  private int size;

  public void clear() {
    Arrays.fill(slots, EMPTY);
    size = 0;
  }

  public PairSet() {
    clear();
  }

  public int size() {
    return size;
  }

  private static long key(int u, int v) {
    int lo = Math.min(u, v);
    int hi = Math.max(u, v);
    return ((long) lo << 32) | (hi & 0xFFFFFFFFL);
  }

  private int slot(long key) {
    return (int) (SampleHash.mix(key) & (slots.length - 1));
  }

  /** Adds {u, v}. */
  public void add(int u, int v) {
    if (2 * (size + 1) > slots.length) {
      long[] old = slots;
      slots = new long[2 * old.length];
      Arrays.fill(slots, EMPTY);
      size = 0;
      for (long k : old) {
        if (k != EMPTY) {
          insert(k);
        }
      }
    }
    insert(key(u, v));
  }

  private void insert(long k) {
    int i = slot(k);
    while (slots[i] != EMPTY) {
      if (slots[i] == k) {
        return;
      }
      i = (i + 1) & (slots.length - 1);
    }
    slots[i] = k;
    size++;
  }

  /** Whether {u, v} (either order) is in the set. */
  public boolean contains(int u, int v) {
    long k = key(u, v);
    int i = slot(k);
    while (slots[i] != EMPTY) {
      if (slots[i] == k) {
        return true;
      }
      i = (i + 1) & (slots.length - 1);
    }
    return false;
  }
}
