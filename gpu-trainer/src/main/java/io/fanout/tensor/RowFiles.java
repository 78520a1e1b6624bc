package io.fanout.tensor;

import java.nio.file.Path;

/**
 * Files holding a table's encoded feature rows, as a device maps them ({@link
 * Backend#mapFeatureRows}): {@code files[p]} holds the rows {@code [starts[p], starts[p+1])}, each
 * {@link RowEncoding#rowBytes} bytes, after a header of {@code headerBytes} bytes. The arrays are
 * shared, not copied: do not modify them.
 *
 * @param files the files, in row order
 * @param starts the first row of each file, then the number of rows ({@code files.length + 1}
 *     entries)
 * @param headerBytes bytes before the first row of each file
 * @param encoding how the rows are encoded
 */
public record RowFiles(Path[] files, long[] starts, long headerBytes, RowEncoding encoding) {
  /** Rows in all files together. */
  public long numRows() {
    return starts[files.length];
  }

  /** Floats per decoded row. */
  public int dim() {
    return encoding.dim();
  }
}
