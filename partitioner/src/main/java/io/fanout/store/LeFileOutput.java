package io.fanout.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;

/**
 * A buffered little-endian writer that appends to one region of a {@link FileChannel} through
 * positional writes, so several regions of one file (e.g. indptr and indices) can be streamed at
 * the same time with bounded memory.
 */
final class LeFileOutput {
  private final FileChannel channel;
  private final String file;
  private final ByteBuffer buf;
  private long position;

  LeFileOutput(FileChannel channel, String file, long start, int bufferBytes) {
    this.channel = channel;
    this.file = file;
    this.position = start;
    this.buf = ByteBuffer.allocate(bufferBytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  void putInt(int v) {
    if (buf.remaining() < 4) {
      flush();
    }
    buf.putInt(v);
  }

  void putLong(long v) {
    if (buf.remaining() < 8) {
      flush();
    }
    buf.putLong(v);
  }

  void putFloat(float v) {
    if (buf.remaining() < 4) {
      flush();
    }
    buf.putFloat(v);
  }

  void put(byte v) {
    if (!buf.hasRemaining()) {
      flush();
    }
    buf.put(v);
  }

  /** The file position the next value lands at. */
  long position() {
    return position + buf.position();
  }

  void flush() {
    buf.flip();
    try {
      while (buf.hasRemaining()) {
        position += channel.write(buf, position);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
    buf.clear();
  }
}
