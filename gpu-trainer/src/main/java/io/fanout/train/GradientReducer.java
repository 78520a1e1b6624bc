package io.fanout.train;

/**
 * The seam between a trainer and data-parallel gradient exchange. After each step's backward pass
 * the trainer hands its whole flat gradient buffer to {@link #allReduceMean}; when the call returns
 * the buffer holds the element-wise mean over all replicas, computed in a fixed order so that every
 * replica gets bit-identical values. The single-process trainer uses {@link #LOCAL}.
 */
public interface GradientReducer extends AutoCloseable {
  /** One replica: the gradients are left as they are. */
  GradientReducer LOCAL =
      new GradientReducer() {
        @Override
        public void allReduceMean(float[] gradients, int length) {}

        @Override
        public int worldSize() {
          return 1;
        }

        @Override
        public int rank() {
          return 0;
        }
      };

  /**
   * Replaces {@code gradients[0 .. length)} with the mean over all replicas. Blocks until every
   * replica has contributed; fails with a clear error naming the peer on a timeout.
   */
  void allReduceMean(float[] gradients, int length);

  /** Number of replicas. */
  int worldSize();

  /** This replica's index in {@code [0, worldSize())}. */
  int rank();

  @Override
  default void close() {}
}
