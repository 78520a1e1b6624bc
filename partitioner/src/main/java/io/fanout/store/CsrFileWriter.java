package io.fanout.store;

import java.nio.file.Path;

/**
 * Streams one {@code csr/part-NNNNN.csr} file: rows in dense-id order, each row's in-neighbors
 * (global dense ids) in ascending order. Memory is bounded by two 1 MiB buffers whatever the size.
 *
 * <pre>{@code
 * try (CsrFileWriter w = new CsrFileWriter(path, p, first, n)) {
 *   for (each row) { for (each neighbor) w.addNeighbor(u); w.endRow(); }
 *   w.finish();
 * }
 * }</pre>
 */
public final class CsrFileWriter extends PartFileWriter {
  /** Header field offsets. */
  public static final int PARTITION = 12;

  public static final int FIRST_VERTEX = 16;
  public static final int NUM_VERTICES = 24;
  public static final int NUM_EDGES = 32;

  private final int partition;
  private final long firstVertex;
  private final long numVertices;
  private final LeFileOutput indptr;
  private final LeFileOutput indices;
  private long rows;
  private long edges;

  public CsrFileWriter(Path path, int partition, long firstVertex, long numVertices) {
    super(path);
    this.partition = partition;
    this.firstVertex = firstVertex;
    this.numVertices = numVertices;
    this.indptr = region(StoreLayout.HEADER_BYTES);
    this.indices = region(indicesOffset(numVertices));
    indptr.putLong(0);
  }

  /** File offset of the indices array of a CSR file with {@code numVertices} rows. */
  public static long indicesOffset(long numVertices) {
    return StoreLayout.HEADER_BYTES + 8L * (numVertices + 1);
  }

  /** Length of a CSR file with the given counts. */
  public static long fileLength(long numVertices, long numEdges) {
    return indicesOffset(numVertices) + 4L * numEdges;
  }

  /** Appends an in-neighbor to the current row. */
  public void addNeighbor(int denseId) {
    indices.putInt(denseId);
    edges++;
  }

  /** Ends the current row. */
  public void endRow() {
    rows++;
    if (rows > numVertices) {
      throw new IllegalStateException(path + ": more than " + numVertices + " rows");
    }
    indptr.putLong(edges);
  }

  public long edgesWritten() {
    return edges;
  }

  @Override
  StoreHeader finishBody() {
    checkCount("rows", rows, numVertices, path);
    indptr.flush();
    indices.flush();
    return StoreHeader.create(StoreLayout.CSR_MAGIC)
        .putInt(PARTITION, partition)
        .putLong(FIRST_VERTEX, firstVertex)
        .putLong(NUM_VERTICES, numVertices)
        .putLong(NUM_EDGES, edges);
  }
}
