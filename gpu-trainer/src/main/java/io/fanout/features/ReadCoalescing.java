package io.fanout.features;

/**
 * How {@link FeatureFiles} merges the rows of one request into read calls. Rows are sorted by their
 * position in the files; a row joins the current call when its start is at most {@code maxGapBytes}
 * past the end of the rows already in it and the call, block-aligned, stays within {@code
 * maxRequestBytes}. The bytes returned are those of the rows whatever the merging: only the number
 * and size of the calls change.
 *
 * @param maxGapBytes the longest stretch of unneeded bytes a call reads between two rows; -1 merges
 *     only repeats of one row
 * @param maxRequestBytes the largest call, in bytes (a single row is read whole even when larger)
 */
public record ReadCoalescing(int maxGapBytes, int maxRequestBytes) {
  /** Through the page cache: the kernel reads whole pages, so a gap under one costs no disk. */
  public static final ReadCoalescing BUFFERED = new ReadCoalescing(4 << 10, 256 << 10);

  /**
   * With {@code O_DIRECT}: on a device whose per-call cost dominates, reading a gap of up to 32 KiB
   * is cheaper than another call; calls up to 256 KiB.
   */
  public static final ReadCoalescing DIRECT = new ReadCoalescing(32 << 10, 256 << 10);

  /**
   * With {@code O_DIRECT} over rows laid out so that a batch's rows lie in runs ({@code
   * feature_layout}): rows at most 4 KiB (one block) apart share a call of up to 256 KiB, so a call
   * moves few bytes it does not need.
   */
  public static final ReadCoalescing DIRECT_NEAR = new ReadCoalescing(4 << 10, 256 << 10);

  /** One call per distinct row: the reference the merged reads are checked against. */
  public static final ReadCoalescing ROW_AT_A_TIME = new ReadCoalescing(-1, 0);

  public ReadCoalescing {
    if (maxGapBytes < -1 || maxRequestBytes < 0) {
      throw new IllegalArgumentException(
          "read coalescing needs a gap >= -1 and a request size >= 0, got "
              + maxGapBytes
              + " and "
              + maxRequestBytes);
    }
  }

  /** The default for reads with or without {@code O_DIRECT}. */
  public static ReadCoalescing defaultFor(boolean direct) {
    return direct ? DIRECT : BUFFERED;
  }
}
