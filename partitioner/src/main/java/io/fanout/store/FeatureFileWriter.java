package io.fanout.store;

import java.nio.file.Path;

/**
 * Streams one {@code features/part-NNNNN.feat} file: one row of {@code dim} values per vertex, in
 * dense-id order. Only {@link StoreLayout#ENCODING_F32} is written today; the encoding is recorded
 * in the header so quantized encodings can be added without a format change.
 */
public final class FeatureFileWriter extends PartFileWriter {
  /** Header field offsets. */
  public static final int ENCODING = 12;

  public static final int FIRST_VERTEX = 16;
  public static final int NUM_VERTICES = 24;
  public static final int DIM = 32;
  public static final int ROW_BYTES = 36;

  private final int encoding;
  private final long firstVertex;
  private final long numVertices;
  private final int dim;
  private final LeFileOutput rows;
  private long written;

  public FeatureFileWriter(Path path, long firstVertex, long numVertices, int dim, int encoding) {
    super(path);
    if (encoding != StoreLayout.ENCODING_F32) {
      close();
      throw new UnsupportedOperationException(
          "feature encoding " + StoreLayout.encodingName(encoding) + " is not written yet");
    }
    if (dim <= 0) {
      close();
      throw new IllegalArgumentException("dim must be positive, got " + dim);
    }
    this.encoding = encoding;
    this.firstVertex = firstVertex;
    this.numVertices = numVertices;
    this.dim = dim;
    this.rows = region(StoreLayout.HEADER_BYTES);
  }

  /** Bytes per row for an encoding. */
  public static int rowBytes(int dim, int encoding) {
    switch (encoding) {
      case StoreLayout.ENCODING_F32:
        return 4 * dim;
      case StoreLayout.ENCODING_F16:
        return 2 * dim;
      case StoreLayout.ENCODING_INT8:
        return dim;
      default:
        throw new IllegalArgumentException("unknown feature encoding " + encoding);
    }
  }

  public static long fileLength(long numVertices, int dim, int encoding) {
    return StoreLayout.HEADER_BYTES + (long) rowBytes(dim, encoding) * numVertices;
  }

  /** Appends the next row: {@code values[offset .. offset + dim)}. */
  public void writeRow(float[] values, int offset) {
    for (int i = 0; i < dim; i++) {
      rows.putFloat(values[offset + i]);
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
        .putInt(ROW_BYTES, rowBytes(dim, encoding));
  }
}
