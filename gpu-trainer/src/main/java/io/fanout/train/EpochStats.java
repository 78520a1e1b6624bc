package io.fanout.train;

/**
 * One epoch of training.
 *
 * @param loss mean loss over labeled seeds
 * @param accuracy training accuracy (with dropout on) over labeled seeds
 * @param batches steps taken
 * @param seeds labeled seeds seen
 * @param seconds wall time of the epoch
 * @param waitSeconds time the step loop waited for data
 */
public record EpochStats(
    int epoch,
    double loss,
    double accuracy,
    int batches,
    long seeds,
    double seconds,
    double waitSeconds,
    float lr) {
  public double waitFraction() {
    return seconds > 0 ? waitSeconds / seconds : 0;
  }
}
