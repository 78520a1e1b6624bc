package io.fanout.tensor.cuda;

/**
 * How the own SGEMM kernel splits a product's k dimension over {@code gridDim.z} (see sgemm.cu). A
 * product with few 64 x 64 output tiles and a long k, such as a weight gradient (200 x 256 outputs
 * summed over 140,000 rows), would otherwise run on a handful of the device's multiprocessors. The
 * split depends only on the shape and the multiprocessor count, so results are deterministic on a
 * device model.
 */
final class SplitK {
  /** Output tile edge of the kernel. */
  static final int TILE = 64;

  /** The kernel's k step: slice lengths are multiples of it. */
  static final int STEP = 16;

  /** No slice is shorter than this many k. */
  static final int MIN_SLICE = 512;

  private SplitK() {}

  /**
   * Slices of k for an {@code m x n x k} product on a device with {@code multiprocessors}: enough
   * to give every multiprocessor about two blocks, at most one per {@link #MIN_SLICE} of k; 1 when
   * the output tiles alone fill the device.
   */
  static int slices(int m, int n, int k, int multiprocessors) {
    long tiles = (long) ((m + TILE - 1) / TILE) * ((n + TILE - 1) / TILE);
    long want = 2L * Math.max(1, multiprocessors);
    if (tiles == 0 || tiles >= want || k < 2 * MIN_SLICE) {
      return 1;
    }
    long s = Math.min((want + tiles - 1) / tiles, k / MIN_SLICE);
    return (int) Math.max(1, s);
  }

  /** The k length of each of {@code slices} slices (the last may be shorter), a multiple of 16. */
  static int sliceLength(int k, int slices) {
    int kc = (k + slices - 1) / slices;
    return (kc + STEP - 1) / STEP * STEP;
  }
}
