package io.fanout.tensor;

/**
 * A graph store's feature rows read by a backend in place ({@code train --feature-access
 * zero-copy}): {@link #gather} copies the rows of node ids that are already in a backend tensor
 * straight from the memory-mapped store into a backend tensor. The host neither gathers nor copies
 * the features; only the node ids go up. On a GPU the rows are mapped into the device's address
 * space and a kernel reads them over the bus (rows of a quantized store cross encoded and the
 * kernel decodes them); the CPU backends read the mapping directly, through the store's own gather
 * ({@link HostRowGather}). Opened by {@link Backend#mapFeatureRows}; close it before its backend.
 */
public interface FeatureRows extends AutoCloseable {
  /** Floats per row. */
  int dim();

  /** Rows in the table (the store's vertices). */
  long numRows();

  /**
   * Writes the rows of the ids {@code ids[idsOff .. idsOff+rows)} (dense vertex ids) into the
   * {@code rows x dim} matrix at {@code out[outOff ..)}, in issue order with the backend's other
   * operations.
   */
  void gather(IntTensor ids, int idsOff, int rows, FloatTensor out, int outOff);

  /** Releases the mapping (unregisters it on a GPU); a no-op the second time. */
  @Override
  void close();
}
