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

  /**
   * As {@link #allReduceMean(float[], int)} on {@code gradients[0 .. length)} of a buffer read and
   * written by absolute index (a backend's pinned host buffer, see {@link
   * io.fanout.tensor.HostFloats}), with the same bit-identical result. This default copies through
   * a heap array (or uses the buffer's own); reducers that exchange gradients themselves read and
   * write the buffer directly.
   */
  default void allReduceMean(java.nio.FloatBuffer gradients, int length) {
    if (length < 0 || length > gradients.capacity()) {
      throw new IllegalArgumentException(
          "length " + length + " is outside [0, " + gradients.capacity() + "]");
    }
    if (gradients.hasArray() && gradients.arrayOffset() == 0) {
      allReduceMean(gradients.array(), length);
      return;
    }
    float[] a = new float[length];
    gradients.get(0, a, 0, length);
    allReduceMean(a, length);
    gradients.put(0, a, 0, length);
  }

  /** Number of replicas. */
  int worldSize();

  /** This replica's index in {@code [0, worldSize())}. */
  int rank();

  @Override
  default void close() {}
}
