package io.fanout.store;

import java.nio.file.Path;

/**
 * Streams one {@code features/part-NNNNN.feat} file: one row of {@code dim} values per vertex, in
 * dense-id order, in the encoding recorded in the header: float32 rows through {@link #writeRow},
 * rows encoded by a {@link FeatureEncoder} through {@link #writeEncodedRow}.
 */
public final class FeatureFileWriter extends PartFileWriter {
  /** Header field offsets. */
  public static final int ENCODING = 12;

  public static final int FIRST_VERTEX = 16;
  public static final int NUM_VERTICES = 24;
  public static final int DIM = 32;
  public static final int ROW_BYTES = 36;

  private final int encoding;
  private final int rowBytes;
  private final long firstVertex;
  private final long numVertices;
  private final int dim;
  private final LeFileOutput rows;
  private long written;

  /** A writer of float32 rows. */
  public FeatureFileWriter(Path path, long firstVertex, long numVertices, int dim, int encoding) {
    this(path, firstVertex, numVertices, FeatureParams.plain(encoding, dim));
    if (encoding != StoreLayout.ENCODING_F32) {
      close();
      throw new IllegalArgumentException("float rows are written as f32 only");
    }
  }

  /** A writer of rows encoded with {@code params} ({@link #writeEncodedRow}). */
  public FeatureFileWriter(Path path, long firstVertex, long numVertices, FeatureParams params) {
    super(path);
    int dim = params.dim;
    int encoding = params.encoding;
    if (dim <= 0) {
      close();
      throw new IllegalArgumentException("dim must be positive, got " + dim);
    }
    this.encoding = encoding;
    this.firstVertex = firstVertex;
    this.numVertices = numVertices;
    this.dim = dim;
    this.rowBytes = params.rowBytes();
    this.rows = region(StoreLayout.HEADER_BYTES);
  }

  public static long fileLength(long numVertices, int rowBytes) {
    return StoreLayout.HEADER_BYTES + (long) rowBytes * numVertices;
  }

  /** Appends the next row: {@code values[offset .. offset + dim)}. */
  public void writeRow(float[] values, int offset) {
    if (encoding != StoreLayout.ENCODING_F32) {
      throw new IllegalStateException("float rows are written to f32 files only");
    }
    for (int i = 0; i < dim; i++) {
      rows.putFloat(values[offset + i]);
    }
    written++;
  }

  /** Appends the next row, already encoded: {@code row[0 .. rowBytes)}. */
  public void writeEncodedRow(byte[] row) {
    for (int i = 0; i < rowBytes; i++) {
      rows.put(row[i]);
    }
    written++;
  }

  @Override
  StoreHeader finishBody() {
    checkCount("rows", written, numVertices, path);
    rows.flush();
    return StoreHeader.create(StoreLayout.FEATURES_MAGIC)
        .putInt(ENCODING, encoding)
        .putLong(FIRST_VERTEX, firstVertex)
        .putLong(NUM_VERTICES, numVertices)
        .putInt(DIM, dim)
        .putInt(ROW_BYTES, rowBytes);
  }
}
