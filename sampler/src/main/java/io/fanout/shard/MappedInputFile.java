package io.fanout.shard;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * A local file mapped read-only into memory (in chunks of 1 GiB), read by Parquet as an {@link
 * InputFile}: the bytes come from the page cache, so a pass over the whole mapping ({@link
 * #crc32c}) followed by Parquet's reads costs one read of the file from disk, not two. The mapping
 * is released when it is garbage collected.
 */
final class MappedInputFile implements InputFile {
  private final long length;
  private final int shift;
  private final long mask;
  private final MappedByteBuffer[] chunks;

  MappedInputFile(Path file) throws IOException {
    this(file, 30);
  }

  /** Maps {@code file} in chunks of {@code 2^chunkShift} bytes (tests use tiny chunks). */
  MappedInputFile(Path file, int chunkShift) throws IOException {
    shift = chunkShift;
    mask = (1L << chunkShift) - 1;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      length = ch.size();
      chunks = new MappedByteBuffer[(int) ((length + mask) >>> shift)];
      for (int i = 0; i < chunks.length; i++) {
        long start = (long) i << shift;
        chunks[i] =
            ch.map(FileChannel.MapMode.READ_ONLY, start, Math.min(length - start, 1L << shift));
      }
    }
  }

  /** The CRC32C of the whole file (hardware-accelerated on direct buffers), as in manifests. */
  long crc32c() {
    CRC32C crc = new CRC32C();
    for (MappedByteBuffer c : chunks) {
      crc.update(c.duplicate());
    }
    return crc.getValue();
  }

  @Override
  public long getLength() {
    return length;
  }

  @Override
  public SeekableInputStream newStream() {
    return new Stream();
  }

  /** A position in the mapping; the chunks themselves are only read with absolute methods. */
  private final class Stream extends SeekableInputStream {
    private long pos;

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void seek(long newPos) throws IOException {
      if (newPos < 0 || newPos > length) {
        throw new EOFException("seek to " + newPos + " outside a file of " + length + " bytes");
      }
      pos = newPos;
    }

    @Override
    public int read() {
      if (pos >= length) {
        return -1;
      }
      byte b = chunks[(int) (pos >>> shift)].get((int) (pos & mask));
      pos++;
      return b & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      if (len == 0) {
        return 0;
      }
      if (pos >= length) {
        return -1;
      }
      int n = (int) Math.min(len, length - pos);
      copy(b, off, n);
      return n;
    }

    @Override
    public void readFully(byte[] b) throws IOException {
      readFully(b, 0, b.length);
    }

    @Override
    public void readFully(byte[] b, int off, int len) throws IOException {
      need(len);
      copy(b, off, len);
    }

    @Override
    public int read(ByteBuffer dst) {
      if (!dst.hasRemaining()) {
        return 0;
      }
      if (pos >= length) {
        return -1;
      }
      int n = (int) Math.min(dst.remaining(), length - pos);
      copy(dst, n);
      return n;
    }

    @Override
    public void readFully(ByteBuffer dst) throws IOException {
      need(dst.remaining());
      copy(dst, dst.remaining());
    }

    @Override
    public long skip(long n) {
      long k = Math.max(0, Math.min(n, length - pos));
      pos += k;
      return k;
    }

    @Override
    public int available() {
      return (int) Math.min(Integer.MAX_VALUE, length - pos);
    }

    private void need(long len) throws IOException {
      if (len > length - pos) {
        throw new EOFException(
            "reading " + len + " bytes at " + pos + " of a file of " + length + " bytes");
      }
    }

    private void copy(byte[] b, int off, int len) {
      while (len > 0) {
        int within = (int) (pos & mask);
        MappedByteBuffer c = chunks[(int) (pos >>> shift)];
        int n = Math.min(len, c.limit() - within);
        c.get(within, b, off, n);
        pos += n;
        off += n;
        len -= n;
      }
    }

    private void copy(ByteBuffer dst, int len) {
      while (len > 0) {
        int within = (int) (pos & mask);
        MappedByteBuffer c = chunks[(int) (pos >>> shift)];
        int n = Math.min(len, c.limit() - within);
        dst.put(dst.position(), c, within, n);
        dst.position(dst.position() + n);
        pos += n;
        len -= n;
      }
    }
  }
}
