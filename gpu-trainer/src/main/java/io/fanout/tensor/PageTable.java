package io.fanout.tensor;

import java.util.Arrays;

/**
 * The pages of a {@link PagedFeatureRows} in slot order: page {@code i} holds the rows of the slots
 * from {@link #first first(i)} on, and the slots allocated so far end at {@link #slots}. Pages are
 * added in slot order (a gap between two pages is allowed). Not thread-safe: its owner
 * synchronizes.
 */
public final class PageTable {
  private final int rowBytes;
  private long[] firsts = new long[0];
  private long end;

  public PageTable(int rowBytes) {
    this.rowBytes = rowBytes;
  }

  /**
   * Records a page of {@code bytes} bytes for the slots from {@code firstSlot} on, after every
   * earlier page; returns its index.
   */
  public int add(long firstSlot, int bytes) {
    checkNext(firstSlot);
    int p = firsts.length;
    firsts = Arrays.copyOf(firsts, p + 1);
    firsts[p] = firstSlot;
    end = firstSlot + bytes / rowBytes;
    return p;
  }

  /** Fails unless a page may start at {@code firstSlot}: at or after the end of the last one. */
  public void checkNext(long firstSlot) {
    if (firstSlot < end) {
      throw new IllegalArgumentException(
          "pages are allocated in slot order: slot " + firstSlot + " after " + end);
    }
  }

  /** The end of the last page's slots. */
  public long slots() {
    return end;
  }

  /** The first slot of page {@code p}. */
  public long first(int p) {
    return firsts[p];
  }

  /** The first slot of every page, in page order (a copy). */
  public long[] firsts() {
    return firsts.clone();
  }

  /** The page whose slots {@code slot} falls in (or after, in a gap). */
  public int pageOf(long slot) {
    if (slot < 0 || slot >= end) {
      throw new IndexOutOfBoundsException("slot " + slot + " outside " + end + " slots");
    }
    int p = Arrays.binarySearch(firsts, slot);
    return p >= 0 ? p : -p - 2;
  }
}
