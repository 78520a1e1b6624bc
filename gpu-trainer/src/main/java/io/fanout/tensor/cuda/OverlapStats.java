package io.fanout.tensor.cuda;

import java.util.Locale;

/**
 * What overlapped upload achieved, from the event timeline of upload groups (the uploads between
 * two host read-backs: one batch). For group {@code g}: {@code copyMs[g]} is the time its copies
 * ran on the copy stream; the compute stream reached its first upload at {@code ready[g]} (done
 * with everything queued before, i.e. the previous batch), the last copy ended at {@code
 * copyEnd[g]} and the group's last device-side copy finished at {@code done[g]} (milliseconds from
 * a common base).
 *
 * <ul>
 *   <li>The compute stream stalled for the upload {@code stall[g] = clamp(copyEnd[g] - ready[g], 0,
 *       done[g] - ready[g])}; the rest of the copy time ran while it computed.
 *   <li>{@link #hiddenShare()}: {@code 1 - sum min(stall, copyMs) / sum copyMs}.
 *   <li>{@link #dataWaitShare()}: the stalls of groups 1.. over the time from the first group's
 *       done to the last's (the steps in between).
 * </ul>
 */
public final class OverlapStats {
  private final int groups;
  private final double copyMs;
  private final double exposedMs;
  private final double waitMs;
  private final double spanMs;

  private OverlapStats(int groups, double copyMs, double exposedMs, double waitMs, double spanMs) {
    this.groups = groups;
    this.copyMs = copyMs;
    this.exposedMs = exposedMs;
    this.waitMs = waitMs;
    this.spanMs = spanMs;
  }

  /** The statistics of {@code n} groups; arrays in submission order. */
  public static OverlapStats of(double[] copyMs, double[] ready, double[] copyEnd, double[] done) {
    int n = copyMs.length;
    if (ready.length != n || copyEnd.length != n || done.length != n) {
      throw new IllegalArgumentException("timeline arrays differ in length");
    }
    double copy = 0;
    double exposed = 0;
    double wait = 0;
    for (int g = 0; g < n; g++) {
      double stall = Math.max(0, Math.min(copyEnd[g], done[g]) - ready[g]);
      copy += copyMs[g];
      exposed += Math.min(stall, copyMs[g]);
      if (g > 0) {
        wait += stall;
      }
    }
    double span = n > 1 ? done[n - 1] - done[0] : 0;
    return new OverlapStats(n, copy, exposed, wait, span);
  }

  /** Upload groups measured (about one per batch). */
  public int groups() {
    return groups;
  }

  public double copyMs() {
    return copyMs;
  }

  /** Copy time during which the compute stream stalled for it. */
  public double exposedMs() {
    return exposedMs;
  }

  /** Copy time hidden behind compute over all copy time (1 when nothing was copied). */
  public double hiddenShare() {
    return copyMs == 0 ? 1 : 1 - exposedMs / copyMs;
  }

  /** Compute-stream stalls for uploads over step time (0 with fewer than 2 groups). */
  public double dataWaitShare() {
    return spanMs == 0 ? 0 : waitMs / spanMs;
  }

  @Override
  public String toString() {
    return String.format(
        Locale.ROOT,
        "%d upload groups: copy %.3f ms, %.1f%% hidden behind compute; data wait %.1f%% of step"
            + " time",
        groups,
        copyMs,
        100 * hiddenShare(),
        100 * dataWaitShare());
  }
}
