package io.fanout.tensor.cuda;

import java.util.List;
import java.util.Locale;

/**
 * What overlapped upload achieved, from the event timeline of each staged copy: when it ran on the
 * copy stream ({@code start}, {@code end}) and when the compute stream reached its wait for it
 * ({@code reach}: an event recorded on the compute stream just before the wait, so after all work
 * queued before it), in milliseconds from a common base.
 *
 * <ul>
 *   <li>The compute stream waited {@code stall = max(0, end - reach)} for a copy; of its copy time
 *       {@code min(end - start, stall)} was exposed, and the rest ran while the compute stream
 *       worked.
 *   <li>{@link #hiddenShare()}: {@code 1 - sum exposed / sum copy time}.
 *   <li>{@link #dataWaitShare()}: the stalls of groups 1.. (a group is one batch's copies) over the
 *       time from the first group's end to the last's (the steps in between).
 * </ul>
 *
 * Each wait is measured where the compute stream actually needs the data, so a copy queued while
 * the previous batch computes and finished before the compute stream gets to it counts as hidden,
 * and one the compute stream idles for counts as exposed, whatever else the group holds.
 */
public final class OverlapStats {
  private final int groups;
  private final double copyMs;
  private final double exposedMs;
  private final double waitMs;
  private final double spanMs;

  /**
   * One group's copies ({@code start[i]}, {@code end[i]}, {@code reach[i]} per copy) and when its
   * last device-side work ran ({@code done}).
   */
  public record Group(double[] start, double[] end, double[] reach, double done) {
    public Group {
      if (end.length != start.length || reach.length != start.length) {
        throw new IllegalArgumentException("timeline arrays differ in length");
      }
    }

    double copyMs() {
      double sum = 0;
      for (int i = 0; i < start.length; i++) {
        sum += end[i] - start[i];
      }
      return sum;
    }

    double stallMs() {
      double sum = 0;
      for (int i = 0; i < start.length; i++) {
        sum += Math.max(0, end[i] - reach[i]);
      }
      return sum;
    }

    double exposedMs() {
      double sum = 0;
      for (int i = 0; i < start.length; i++) {
        sum += Math.min(end[i] - start[i], Math.max(0, end[i] - reach[i]));
      }
      return sum;
    }
  }

  private OverlapStats(int groups, double copyMs, double exposedMs, double waitMs, double spanMs) {
    this.groups = groups;
    this.copyMs = copyMs;
    this.exposedMs = exposedMs;
    this.waitMs = waitMs;
    this.spanMs = spanMs;
  }

  /** The statistics of {@code groups}, in submission order. */
  public static OverlapStats of(List<Group> groups) {
    double copy = 0;
    double exposed = 0;
    double wait = 0;
    for (int g = 0; g < groups.size(); g++) {
      Group gr = groups.get(g);
      copy += gr.copyMs();
      exposed += gr.exposedMs();
      if (g > 0) {
        wait += gr.stallMs();
      }
    }
    int n = groups.size();
    double span = n > 1 ? groups.get(n - 1).done() - groups.get(0).done() : 0;
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
