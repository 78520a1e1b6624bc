package io.fanout.features;

import java.util.Arrays;

/**
 * The fewest rows any cache of a given number of rows must read for a whole known access sequence
 * (an epoch's batches, each batch's node ids in gather order): the offline optimum, computed over
 * the entire sequence at once rather than in {@link RowCache}'s planning windows. Belady's MIN with
 * bypass is optimal for fixed-size rows when a missed row may go straight to the batch without
 * being kept, so this runs it over the whole sequence: a miss keeps its row only when the row is
 * used again sooner than the held row used furthest in the future, which it then replaces.
 *
 * <p>Independent of {@link RowCache}: next uses come from one backward pass over the sequence, and
 * the held rows sit in a binary max-heap of {@code (next use, row)} packed into {@code long}s with
 * lazy deletion. Memory is two {@code int}s per access and one per vertex.
 */
public final class OfflineMin {
  private static final int NEVER = Integer.MAX_VALUE;

  private OfflineMin() {}

  /**
   * Misses of the optimal cache of {@code capacity} rows on {@code seq[0 .. len)}, whose ids lie in
   * {@code [0, numVertices)}. Every access of a row not held is a miss, the first ones included.
   */
  public static long misses(int[] seq, int len, int numVertices, int capacity) {
    if (len > NEVER - 1) {
      throw new IllegalArgumentException("sequence of " + len + " accesses, over 2^31 - 2");
    }
    int[] next = new int[len];
    int[] last = new int[numVertices];
    Arrays.fill(last, NEVER);
    for (int i = len - 1; i >= 0; i--) {
      int row = seq[i];
      next[i] = last[row];
      last[row] = i;
    }
    // For a held row, its next use (the key of its live heap entry); -1 when not held.
    int[] heldUntil = last;
    Arrays.fill(heldUntil, -1);
    long[] heap = new long[16];
    int size = 0;
    int held = 0;
    long misses = 0;
    for (int i = 0; i < len; i++) {
      int row = seq[i];
      int nu = next[i];
      if (heldUntil[row] >= 0) {
        // a hit: the old heap entry becomes stale; the row is dropped when never used again
        if (nu == NEVER) {
          heldUntil[row] = -1;
          held--;
          continue;
        }
        heldUntil[row] = nu;
      } else {
        misses++;
        if (nu == NEVER || capacity == 0) {
          continue;
        }
        if (held == capacity) {
          // the live entry used furthest in the future
          while (true) {
            long top = heap[0];
            int r = (int) top;
            if (heldUntil[r] == (int) (top >>> 32)) {
              break;
            }
            size = pop(heap, size);
          }
          int far = (int) (heap[0] >>> 32);
          if (far <= nu) {
            continue;
          }
          heldUntil[(int) heap[0]] = -1;
          size = pop(heap, size);
          held--;
        }
        heldUntil[row] = nu;
        held++;
      }
      if (size == heap.length) {
        heap = Arrays.copyOf(heap, size * 2);
      }
      size = push(heap, size, ((long) nu << 32) | row);
    }
    return misses;
  }

  private static int push(long[] heap, int size, long v) {
    int i = size;
    while (i > 0) {
      int p = (i - 1) >>> 1;
      if (heap[p] >= v) {
        break;
      }
      heap[i] = heap[p];
      i = p;
    }
    heap[i] = v;
    return size + 1;
  }

  private static int pop(long[] heap, int size) {
    int n = size - 1;
    long v = heap[n];
    int i = 0;
    while (true) {
      int c = 2 * i + 1;
      if (c >= n) {
        break;
      }
      if (c + 1 < n && heap[c + 1] > heap[c]) {
        c++;
      }
      if (heap[c] <= v) {
        break;
      }
      heap[i] = heap[c];
      i = c;
    }
    if (n > 0) {
      heap[i] = v;
    }
    return n;
  }
}
