package io.fanout.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Streams the rows of one {@code f32} feature part file in order, with bounded memory and no memory
 * map: what {@code quantize} reads, on Spark executors, to compute statistics and encode.
 */
public final class FeatureFileReader implements AutoCloseable {
  private final Path path;
  private final FileChannel channel;
  private final int dim;
  private final long numVertices;
  private final ByteBuffer buf;
  private long position;

  /**
   * Opens {@code path}, checks its header (magic, f32, {@code dim}) and positions it at row {@code
   * firstRow}.
   *
   * @throws InvalidInputException when the file is missing, not f32 or of another width
   */
  public FeatureFileReader(Path path, int dim, long firstRow) {
    this.path = path;
    this.dim = dim;
    try {
      channel = FileChannel.open(path, StandardOpenOption.READ);
    } catch (NoSuchFileException e) {
      throw new InvalidInputException(path + ": missing (a feature part file of the store)");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open " + path, e);
    }
    try {
      ByteBuffer h = ByteBuffer.allocate(StoreLayout.HEADER_BYTES);
      readFully(h, 0);
      StoreHeader header =
          StoreHeader.parse(path.toString(), h.array(), StoreLayout.FEATURES_MAGIC, channel.size());
      int enc = header.getInt(FeatureFileWriter.ENCODING);
      if (enc != StoreLayout.ENCODING_F32 || header.getInt(FeatureFileWriter.DIM) != dim) {
        throw new InvalidInputException(
            path
                + ": encoding code "
                + enc
                + " and dim "
                + header.getInt(FeatureFileWriter.DIM)
                + ", expected f32 rows of "
                + dim
                + " values; quantize reads f32 stores only");
      }
      numVertices = header.getLong(FeatureFileWriter.NUM_VERTICES);
    } catch (IOException e) {
      close();
      throw new UncheckedIOException("cannot read " + path, e);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    int rowsPerBuffer = Math.max(1, (1 << 20) / (4 * dim));
    buf = ByteBuffer.allocate(rowsPerBuffer * 4 * dim).order(ByteOrder.LITTLE_ENDIAN);
    buf.limit(0);
    position = StoreLayout.HEADER_BYTES + 4L * dim * firstRow;
  }

  /** Rows in the file. */
  public long numVertices() {
    return numVertices;
  }

  /** Reads the next row into {@code dst[off .. off + dim)}. */
  public void next(float[] dst, int off) {
    if (buf.remaining() < 4 * dim) {
      buf.clear();
      try {
        int n = (int) Math.min(buf.capacity(), channel.size() - position);
        buf.limit(n);
        readFully(buf, position);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + path, e);
      }
      position += buf.limit();
      buf.flip();
      if (buf.remaining() < 4 * dim) {
        throw new InvalidInputException(path + ": truncated feature rows");
      }
    }
    for (int c = 0; c < dim; c++) {
      dst[off + c] = buf.getFloat();
    }
  }

  private void readFully(ByteBuffer b, long at) throws IOException {
    while (b.hasRemaining()) {
      int n = channel.read(b, at);
      if (n < 0) {
        throw new InvalidInputException(path + ": truncated feature rows");
      }
      at += n;
    }
  }

  @Override
  public void close() {
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close " + path, e);
    }
  }
}
