package io.fanout.tensor;

/**
 * {@link FeatureRows} of the CPU backends: {@link #gather} reads the ids from the backend's int
 * tensor and copies the rows straight from the store's memory mapping into the output tensor, with
 * no host-side batch array in between (the CPU's counterpart of the CUDA backend's mapped rows).
 * Rows of a quantized store are decoded where they lie in the mapping by the store's own gather
 * ({@link HostRowGather}), the host gather's decoder, so both give the same floats.
 */
final class MappedFeatureRows implements FeatureRows {
  private final HostRowGather host;
  private final int dim;
  private final long numRows;
  private boolean closed;

  /** The rows of {@code files}, in any encoding, read and decoded by {@code host}. */
  MappedFeatureRows(RowFiles files, HostRowGather host) {
    this.host = host;
    this.dim = files.dim();
    this.numRows = files.numRows();
  }

  @Override
  public int dim() {
    return dim;
  }

  @Override
  public long numRows() {
    return numRows;
  }

  @Override
  public void gather(IntTensor ids, int idsOff, int rows, FloatTensor out, int outOff) {
    if (closed) {
      throw new IllegalStateException("feature rows were closed");
    }
    int[] id = CpuBackend.i(ids);
    float[] x = CpuBackend.f(out);
    checkGather(id, idsOff, rows, x, outOff, dim);
    host.gather(id, idsOff, rows, x, outOff);
  }

  /**
   * Fails unless {@code id[idsOff ..+rows)} and {@code rows x dim} floats at {@code outOff} fit.
   */
  static void checkGather(int[] id, int idsOff, int rows, float[] x, int outOff, int dim) {
    if (idsOff < 0 || rows < 0 || (long) idsOff + rows > id.length) {
      throw new IndexOutOfBoundsException(
          "ids [" + idsOff + ", " + ((long) idsOff + rows) + ") outside a tensor of " + id.length);
    }
    if (outOff < 0 || (long) outOff + (long) rows * dim > x.length) {
      throw new IndexOutOfBoundsException(
          rows + " rows of " + dim + " at " + outOff + " outside a tensor of " + x.length);
    }
  }

  @Override
  public void close() {
    closed = true;
  }
}
