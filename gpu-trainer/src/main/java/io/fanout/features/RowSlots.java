package io.fanout.features;

import java.util.Arrays;

/**
 * Which slot of a {@link RowCache} holds each row: an array indexed by vertex (one load an access,
 * 4 bytes a vertex) where that is no larger than the cached rows, a hash map of the held rows
 * otherwise.
 */
abstract sealed class RowSlots {
  /**
   * The slot index for a cache of {@code capacity} rows of {@code rowBytes} over {@code vertices}.
   */
  static RowSlots of(int vertices, int capacity, int rowBytes) {
    return byVertex(vertices, capacity, rowBytes) ? new ByVertex(vertices) : new ByMap(capacity);
  }

  /** Whether {@link #of} indexes by vertex: its 4 bytes a vertex are at most the rows' bytes. */
  static boolean byVertex(long vertices, long capacity, long rowBytes) {
    return capacity > 0 && 4 * vertices <= capacity * rowBytes;
  }

  /** The slot holding {@code row}, or -1. */
  abstract int get(int row);

  /** Records that {@code slot} holds {@code row} (which no slot held). */
  abstract void put(int row, int slot);

  /** Records that no slot holds {@code row}. */
  abstract void remove(int row);

  private static final class ByVertex extends RowSlots {
    private final int[] slot;

    ByVertex(int vertices) {
      slot = new int[vertices];
      Arrays.fill(slot, -1);
    }

    @Override
    int get(int row) {
      return slot[row];
    }

    @Override
    void put(int row, int s) {
      slot[row] = s;
    }

    @Override
    void remove(int row) {
      slot[row] = -1;
    }
  }

  private static final class ByMap extends RowSlots {
    private final IntIntMap map;

    ByMap(int capacity) {
      map = new IntIntMap(capacity);
    }

    @Override
    int get(int row) {
      return map.get(row, -1);
    }

    @Override
    void put(int row, int s) {
      map.put(row, s);
    }

    @Override
    void remove(int row) {
      map.remove(row);
    }
  }
}
