package io.fanout.store;

import java.nio.file.Path;

/**
 * Streams one {@code weights/part-NNNNN.wgt} file: a float32 weight per entry of the partition's
 * CSR indices, in the same order, so entry {@code i} weighs the edge at CSR position {@code i}. The
 * header repeats the CSR file's counts.
 */
public final class WeightFileWriter extends PartFileWriter {
  /** Header field offsets: those of {@link CsrFileWriter}, whose counts the header repeats. */
  public static final int PARTITION = CsrFileWriter.PARTITION;

  public static final int FIRST_VERTEX = CsrFileWriter.FIRST_VERTEX;
  public static final int NUM_VERTICES = CsrFileWriter.NUM_VERTICES;
  public static final int NUM_EDGES = CsrFileWriter.NUM_EDGES;

  private final int partition;
  private final long firstVertex;
  private final long numVertices;
  private final LeFileOutput weights;
  private long edges;

  public WeightFileWriter(Path path, int partition, long firstVertex, long numVertices) {
    super(path);
    this.partition = partition;
    this.firstVertex = firstVertex;
    this.numVertices = numVertices;
    this.weights = region(StoreLayout.HEADER_BYTES);
  }

  /** Length of a weights file with {@code numEdges} entries. */
  public static long fileLength(long numEdges) {
    return StoreLayout.HEADER_BYTES + 4L * numEdges;
  }

  /** Appends the weight of the next CSR entry. */
  public void add(float weight) {
    weights.putFloat(weight);
    edges++;
  }

  public long edgesWritten() {
    return edges;
  }

  @Override
  StoreHeader finishBody() {
    weights.flush();
    return StoreHeader.create(StoreLayout.WEIGHTS_MAGIC)
        .putInt(PARTITION, partition)
        .putLong(FIRST_VERTEX, firstVertex)
        .putLong(NUM_VERTICES, numVertices)
        .putLong(NUM_EDGES, edges);
  }
}
