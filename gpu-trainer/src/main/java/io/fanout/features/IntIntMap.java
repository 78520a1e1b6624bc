package io.fanout.features;

import java.util.Arrays;

/**
 * An open-addressing map from non-negative int keys to int values in two int arrays (linear
 * probing, backward-shift deletion): no boxing, no allocation after construction.
 */
final class IntIntMap {
  private static final int EMPTY = -1;

  private final int[] keys;
  private final int[] values;
  private final int mask;
  private int size;

  /** A map that holds up to {@code capacity} keys at a load factor of at most 1/2. */
  IntIntMap(int capacity) {
    int n = Integer.highestOneBit(Math.max(2, capacity) * 2 - 1) * 2;
    keys = new int[n];
    values = new int[n];
    mask = n - 1;
    Arrays.fill(keys, EMPTY);
  }

  int size() {
    return size;
  }

  /** The value of {@code key}, or {@code missing} when absent. */
  int get(int key, int missing) {
    int i = slot(key);
    while (true) {
      int k = keys[i];
      if (k == key) {
        return values[i];
      }
      if (k == EMPTY) {
        return missing;
      }
      i = (i + 1) & mask;
    }
  }

  void put(int key, int value) {
    int i = slot(key);
    while (true) {
      int k = keys[i];
      if (k == key) {
        values[i] = value;
        return;
      }
      if (k == EMPTY) {
        keys[i] = key;
        values[i] = value;
        size++;
        return;
      }
      i = (i + 1) & mask;
    }
  }

  void remove(int key) {
    int i = slot(key);
    while (keys[i] != key) {
      if (keys[i] == EMPTY) {
        return;
      }
      i = (i + 1) & mask;
    }
    size--;
    // Backward shift: move later entries of the probe run into the hole.
    int hole = i;
    int j = (i + 1) & mask;
    while (keys[j] != EMPTY) {
      int home = slot(keys[j]);
      if (((j - home) & mask) >= ((j - hole) & mask)) {
        keys[hole] = keys[j];
        values[hole] = values[j];
        hole = j;
      }
      j = (j + 1) & mask;
    }
    keys[hole] = EMPTY;
  }

  void clear() {
    if (size > 0) {
      Arrays.fill(keys, EMPTY);
      size = 0;
    }
  }

  private int slot(int key) {
    int h = key * 0x9E3779B9;
    return (h ^ (h >>> 16)) & mask;
  }
}
