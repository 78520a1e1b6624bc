package io.fanout.features;

import java.util.Arrays;

/**
 * Belady's eviction order within one planned window: a slot's key is the position of its row's next
 * use in the window ({@code base <= key < base + len}, one slot per position, since a position is
 * the next use of one access only) or {@link #NEVER}. Slots keyed {@code NEVER} are kept on a
 * stack, the others in {@code slotAt} by position with a three-level bitmap of the occupied
 * positions, so {@link #set} and {@link #top} take a few word operations instead of a heap's sift
 * through cache-missing levels.
 */
final class FurthestNextUse implements EvictionOrder {
  private static final long ABSENT = Long.MIN_VALUE;

  private final long[] keys;
  private final int[] neverAt;
  private final int[] never;
  private int nevers;

  private long base;
  private int len;
  private int words2;
  private int[] slotAt = new int[0];
  private long[] bits0 = new long[0];
  private long[] bits1 = new long[0];
  private long[] bits2 = new long[0];

  FurthestNextUse(int slots) {
    keys = new long[slots];
    neverAt = new int[slots];
    never = new int[slots];
    Arrays.fill(keys, ABSENT);
  }

  /**
   * Forgets every slot and takes keys of the window {@code [base, base + len)} from now on; the
   * caller then {@link #set sets} each slot it holds.
   */
  void reset(long base, int len) {
    Arrays.fill(keys, ABSENT);
    nevers = 0;
    this.base = base;
    this.len = len;
    int words0 = (len + 63) >>> 6;
    int words1 = (words0 + 63) >>> 6;
    words2 = (words1 + 63) >>> 6;
    if (slotAt.length < len) {
      slotAt = new int[Math.max(len, 2 * slotAt.length)];
      bits0 = new long[(slotAt.length + 63) >>> 6];
      bits1 = new long[(bits0.length + 63) >>> 6];
      bits2 = new long[(bits1.length + 63) >>> 6];
    } else {
      Arrays.fill(bits0, 0, words0, 0L);
      Arrays.fill(bits1, 0, words1, 0L);
      Arrays.fill(bits2, 0, words2, 0L);
    }
  }

  @Override
  public void set(int slot, long key) {
    long old = keys[slot];
    if (old == NEVER) {
      int at = neverAt[slot];
      int last = never[--nevers];
      never[at] = last;
      neverAt[last] = at;
    } else if (old != ABSENT) {
      clear((int) (old - base));
    }
    keys[slot] = key;
    if (key == NEVER) {
      neverAt[slot] = nevers;
      never[nevers++] = slot;
    } else {
      long p = key - base;
      if (p < 0 || p >= len) {
        throw new IllegalStateException(
            "next use " + key + " outside the planned window [" + base + ", " + (base + len) + ")");
      }
      mark((int) p, slot);
    }
  }

  @Override
  public int top() {
    if (nevers > 0) {
      return never[nevers - 1];
    }
    int i2 = words2;
    long w2 = 0;
    while (--i2 >= 0 && (w2 = bits2[i2]) == 0) {}
    if (i2 < 0) {
      throw new IllegalStateException("no slot is held");
    }
    int i1 = (i2 << 6) + 63 - Long.numberOfLeadingZeros(w2);
    int i0 = (i1 << 6) + 63 - Long.numberOfLeadingZeros(bits1[i1]);
    int p = (i0 << 6) + 63 - Long.numberOfLeadingZeros(bits0[i0]);
    return slotAt[p];
  }

  @Override
  public long key(int slot) {
    return keys[slot];
  }

  private void mark(int p, int slot) {
    slotAt[p] = slot;
    int i0 = p >>> 6;
    long w0 = bits0[i0];
    bits0[i0] = w0 | 1L << p;
    if (w0 == 0) {
      int i1 = i0 >>> 6;
      long w1 = bits1[i1];
      bits1[i1] = w1 | 1L << i0;
      if (w1 == 0) {
        bits2[i1 >>> 6] |= 1L << i1;
      }
    }
  }

  private void clear(int p) {
    int i0 = p >>> 6;
    long w0 = bits0[i0] & ~(1L << p);
    bits0[i0] = w0;
    if (w0 == 0) {
      int i1 = i0 >>> 6;
      long w1 = bits1[i1] & ~(1L << i0);
      bits1[i1] = w1;
      if (w1 == 0) {
        bits2[i1 >>> 6] &= ~(1L << i1);
      }
    }
  }
}
