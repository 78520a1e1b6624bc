package io.fanout.store;

import java.nio.file.Path;

/**
 * Streams one {@code nodes/part-NNNNN.nodes} file: the label (int32, -1 = unlabeled) and split code
 * (int8) of each vertex, in dense-id order.
 */
public final class NodesFileWriter extends PartFileWriter {
  /** Header field offsets. */
  public static final int PARTITION = 12;

  public static final int FIRST_VERTEX = 16;
  public static final int NUM_VERTICES = 24;

  private final int partition;
  private final long firstVertex;
  private final long numVertices;
  private final LeFileOutput labels;
  private final LeFileOutput splits;
  private long written;

  public NodesFileWriter(Path path, int partition, long firstVertex, long numVertices) {
    super(path);
    this.partition = partition;
    this.firstVertex = firstVertex;
    this.numVertices = numVertices;
    this.labels = region(StoreLayout.HEADER_BYTES);
    this.splits = region(splitsOffset(numVertices));
  }

  public static long splitsOffset(long numVertices) {
    return StoreLayout.HEADER_BYTES + 4L * numVertices;
  }

  public static long fileLength(long numVertices) {
    return StoreLayout.HEADER_BYTES + 5L * numVertices;
  }

  /** Appends the next vertex's label and split code. */
  public void write(int label, byte split) {
    labels.putInt(label);
    splits.put(split);
    written++;
  }

  @Override
  StoreHeader finishBody() {
    checkCount("rows", written, numVertices, path);
    labels.flush();
    splits.flush();
    return StoreHeader.create(StoreLayout.NODES_MAGIC)
        .putInt(PARTITION, partition)
        .putLong(FIRST_VERTEX, firstVertex)
        .putLong(NUM_VERTICES, numVertices);
  }
}
