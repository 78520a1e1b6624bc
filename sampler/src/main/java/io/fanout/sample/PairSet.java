package io.fanout.sample;

import java.util.Arrays;
import java.util.function.IntUnaryOperator;

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

  /**
   * Drops from row {@code i} of a sampled hop the ids {@code u} with {@code {node(i), u}} in the
   * set, compacting {@code ids} and rewriting {@code ptr} in place; returns {@code ids} or, when
   * some were dropped, a copy of its kept prefix. Both sampling modes remove a link batch's
   * positive edges through this method, so their blocks are identical.
   *
   * @param node the global id of the hop's destination {@code i}
   */
  public int[] dropFrom(int[] ptr, int[] ids, IntUnaryOperator node) {
    int w = 0;
    int start = 0;
    for (int i = 0; i + 1 < ptr.length; i++) {
      int v = node.applyAsInt(i);
      int end = ptr[i + 1];
      for (int e = start; e < end; e++) {
        if (!contains(ids[e], v)) {
          ids[w++] = ids[e];
        }
      }
      start = end;
      ptr[i + 1] = w;
    }
    return w == ids.length ? ids : Arrays.copyOf(ids, w);
  }
}
