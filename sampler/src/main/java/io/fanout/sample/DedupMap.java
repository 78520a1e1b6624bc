package io.fanout.sample;

import java.util.Arrays;

/**
 * Open-addressing {@code int -> int} map with linear probing for non-negative keys, reused across
 * batches: {@link #clear} is O(1) (a generation stamp), so no per-batch allocation or fill. A slot
 * keeps its stamp, key and value side by side in one array, so a probe touches one cache line.
 */
final class DedupMap {
  private static final int EMPTY = -1;
  private static final int STRIDE = 4; // stamp, key, value, unused: 16-byte slots
  private int[] slots;
  private int generation = 1;
  private int mask;
  private int shift;
  private int size;

  DedupMap(int expected) {
    allocate(capacityFor(expected));
  }

  private static int capacityFor(int expected) {
    int cap = Integer.highestOneBit(Math.max(16, expected) * 2 - 1) << 1;
    if (cap <= 0 || cap > (1 << 28)) {
      throw new IllegalStateException("dedup map too large for " + expected + " keys");
    }
    return cap;
  }

  private void allocate(int cap) {
    slots = new int[cap * STRIDE];
    mask = cap - 1;
    shift = 32 - Integer.numberOfTrailingZeros(cap);
    generation = 1;
    size = 0;
  }

  void clear() {
    size = 0;
    if (++generation == Integer.MAX_VALUE) {
      Arrays.fill(slots, 0);
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
      int o = s * STRIDE;
      if (slots[o] != generation) {
        return EMPTY;
      }
      if (slots[o + 1] == key) {
        return slots[o + 2];
      }
    }
  }

  /**
   * Reads the first probed slot of each of {@code keys[from .. to)}, independent reads the CPU
   * keeps in flight together, so that the {@link #putIfAbsent} calls that follow for the same keys
   * find those slots cached. Returns a value of the reads, which the caller must keep (so that the
   * reads are not optimised away); the map is unchanged.
   */
  int touch(int[] keys, int from, int to) {
    int x = 0;
    for (int e = from; e < to; e++) {
      x += slots[slot(keys[e]) * STRIDE];
    }
    return x;
  }

  /**
   * The value of {@code key}; when absent, maps it to {@code value} and returns -1 (so a caller
   * appends the key to its list exactly when -1 comes back).
   */
  int putIfAbsent(int key, int value) {
    int s = slot(key);
    int o = s * STRIDE;
    while (slots[o] == generation) {
      if (slots[o + 1] == key) {
        return slots[o + 2];
      }
      s = (s + 1) & mask;
      o = s * STRIDE;
    }
    slots[o] = generation;
    slots[o + 1] = key;
    slots[o + 2] = value;
    if (++size > (mask + 1) >>> 1) {
      grow();
    }
    return EMPTY;
  }

  private void grow() {
    int[] old = slots;
    int oldGeneration = generation;
    int count = size;
    allocate((mask + 1) << 1);
    for (int o = 0; o < old.length; o += STRIDE) {
      if (old[o] == oldGeneration) {
        putIfAbsent(old[o + 1], old[o + 2]);
      }
    }
    if (size != count) {
      throw new IllegalStateException("dedup map lost keys while growing");
    }
  }
}
