package io.fanout.train;

import io.fanout.features.CachePolicy;
import io.fanout.features.RowCache;
import io.fanout.features.RowCacheSizing;

/**
 * How many upcoming batches a {@link RowCache} plans over (the Belady window, Ginex's superbatch),
 * and how many of them it serves before planning again.
 *
 * <p>A cache's {@link RowCache#windowBatches()} fixes the window at that many batches ({@code train
 * --feature-cache-window N}, 32 by default). With {@link RowCacheSizing#AUTO_WINDOW} ({@code auto})
 * a {@link CachePolicy#BELADY} window is at least {@link #MIN_BATCHES} batches and grows past that
 * while it holds fewer than {@link #CAPACITIES} times the rows the cache holds and fewer accesses
 * than the cache's bytes over {@link #BYTES_PER_ACCESS}, up to {@link #MAX_BATCHES} batches. A row
 * whose next use lies past the window looks unused to the planner, so a window short against the
 * cache evicts rows the optimum keeps: on the feature benchmark's graph with batches of 64 seeds,
 * the 32-batch window (4.4 cache sizes of rows) read 1.16x the offline optimum's rows and {@code
 * auto} (93 batches) the optimum to 0.002%. Batches large against the cache reach these limits
 * within the minimum and are planned as with 32. Planning holds each access of the window and its
 * batch, so a grown window takes heap the fixed one does not (a run at the edge of its heap,
 * features in {@code pq} and batches of 256, ran out of a 500 MB heap with it). Other policies plan
 * nothing and keep the minimum.
 *
 * <p>Half a window is served per plan while more batches follow, so every served batch is planned
 * with at least half a window ahead; the rest are served at the end.
 */
public final class PlanWindow {
  /** Batches an {@code auto} window holds at the least. */
  static final int MIN_BATCHES = 32;

  /** Batches an {@code auto} window holds at the most. */
  static final int MAX_BATCHES = 1024;

  /** A Belady window's rows, in cache sizes, once past {@link #MIN_BATCHES}. */
  static final int CAPACITIES = 16;

  /**
   * Heap a planned access takes, as the growth limit counts it: the plan's 16 bytes an access and
   * its next-use index, and the held batch's node id and block edges.
   */
  static final int BYTES_PER_ACCESS = 32;

  /** Rows a window holds at the most before it stops growing (its plan indexes them by int). */
  static final long MAX_ROWS = 1L << 30;

  private final int minBatches;
  private final int maxBatches;
  private final long targetRows;

  /**
   * The window of a cache of {@code policy} holding {@code capacityRows} rows of {@code rowBytes}
   * each, of {@code windowBatches} batches or {@link RowCacheSizing#AUTO_WINDOW}.
   */
  PlanWindow(CachePolicy policy, long capacityRows, int rowBytes, int windowBatches) {
    long c = Math.max(0, capacityRows);
    boolean auto = windowBatches == RowCacheSizing.AUTO_WINDOW;
    this.minBatches = auto ? MIN_BATCHES : windowBatches;
    this.maxBatches = auto ? MAX_BATCHES : windowBatches;
    this.targetRows =
        policy == CachePolicy.BELADY && auto
            ? Math.min(CAPACITIES * c, c * Math.max(1, rowBytes) / BYTES_PER_ACCESS)
            : 0;
  }

  /** The window of {@code cache}. */
  public static PlanWindow of(RowCache cache) {
    return new PlanWindow(
        cache.policy(), cache.capacityRows(), cache.files().rowBytes(), cache.windowBatches());
  }

  /** Whether a window of {@code batches} batches and {@code rows} rows takes another batch. */
  public boolean wantsMore(int batches, long rows) {
    if (rows >= MAX_ROWS) {
      return false;
    }
    return batches < minBatches || (rows < targetRows && batches < maxBatches);
  }

  /**
   * Whether a window of {@code rows} rows is as long as a plan may be ({@link #wantsMore} is false
   * from there on, whatever the batches): for callers that plan several caches over one window.
   */
  public static boolean full(long rows) {
    return rows >= MAX_ROWS;
  }

  /**
   * How many of a planned window's {@code size} batches are served before planning again: half of
   * them while {@code more} batches follow, all of them at the end.
   */
  public static int servedPerPlan(boolean more, int size) {
    return more ? Math.max(1, size / 2) : size;
  }

  /**
   * The accesses a window of batches of {@code batchRows} rows each holds at the most: what {@link
   * #wantsMore} lets it reach (its last batch may pass the target by one batch).
   */
  long maxAccesses(long batchRows) {
    long b = Math.max(1, batchRows);
    long atTarget = Math.min(maxBatches * b, targetRows + b);
    return Math.min(Math.max(minBatches * b, atTarget), MAX_ROWS + b);
  }
}
