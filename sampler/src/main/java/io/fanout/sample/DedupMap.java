package io.fanout.sample;

import java.util.Arrays;

/**
 * Open-addressing {@code int -> int} map with linear probing for non-negative keys, reused across
 * batches: {@link #clear} is O(1) (a generation stamp), so no per-batch allocation or fill.
 */
final class DedupMap {
  private static final int EMPTY = -1;
  private int[] keys;
  private int[] values;
  private int[] stamps;
  private int generation = 1;
  private int mask;
  private int shift;
  private int size;

  DedupMap(int expected) {
    allocate(capacityFor(expected));
  }

  private static int capacityFor(int expected) {
    int cap = Integer.highestOneBit(Math.max(16, expected) * 2 - 1) << 1;
    if (cap <= 0) {
      throw new IllegalStateException("dedup map too large for " + expected + " keys");
    }
    return cap;
  }

  private void allocate(int cap) {
    keys = new int[cap];
    values = new int[cap];
    stamps = new int[cap];
    mask = cap - 1;
    shift = 32 - Integer.numberOfTrailingZeros(cap);
    generation = 1;
    size = 0;
  }

  void clear() {
    size = 0;
    if (++generation == Integer.MAX_VALUE) {
      Arrays.fill(stamps, 0);
      generation = 1;
    }
  }

  int size() {
    return size;
  }

  private int slot(int key) {
    return (key * 0x9E3779B9) >>> shift;
  }

  /** The value of {@code key}, or -1 when absent. */
  int get(int key) {
    for (int s = slot(key); ; s = (s + 1) & mask) {
      if (stamps[s] != generation) {
        return EMPTY;
      }
      if (keys[s] == key) {
        return values[s];
      }
    }
  }

  /**
   * The value of {@code key}; when absent, maps it to {@code value} and returns -1 (so a caller
   * appends the key to its list exactly when -1 comes back).
   */
  int putIfAbsent(int key, int value) {
    int s = slot(key);
    for (; stamps[s] == generation; s = (s + 1) & mask) {
      if (keys[s] == key) {
        return values[s];
      }
    }
    keys[s] = key;
    values[s] = value;
    stamps[s] = generation;
    if (++size > (mask + 1) >>> 1) {
      grow();
    }
    return EMPTY;
  }

  private void grow() {
    int[] oldKeys = keys;
    int[] oldValues = values;
    int[] oldStamps = stamps;
    int oldGeneration = generation;
    int count = size;
    allocate((mask + 1) << 1);
    for (int s = 0; s < oldKeys.length; s++) {
      if (oldStamps[s] == oldGeneration) {
        putIfAbsent(oldKeys[s], oldValues[s]);
      }
    }
    if (size != count) {
      throw new IllegalStateException("dedup map lost keys while growing");
    }
  }
}
