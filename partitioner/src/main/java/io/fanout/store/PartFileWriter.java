package io.fanout.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Common part of the part-file writers: opens the file (replacing any earlier attempt, so a retried
 * task rewrites its own part file from scratch), writes the header last and closes.
 */
abstract class PartFileWriter implements AutoCloseable {
  static final int BUFFER_BYTES = 1 << 20;

  final Path path;
  final String name;
  final FileChannel channel;
  private boolean finished;
  private boolean closed;

  PartFileWriter(Path path) {
    this.path = path;
    this.name = path.toString();
    try {
      Files.createDirectories(path.toAbsolutePath().getParent());
      channel =
          FileChannel.open(
              path,
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.WRITE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + path, e);
    }
  }

  LeFileOutput region(long start) {
    return new LeFileOutput(channel, name, start, BUFFER_BYTES);
  }

  /** Checks the body is complete, flushes it and returns the header to write. */
  abstract StoreHeader finishBody();

  /**
   * Completes the file: checks every row was written, writes the header and closes. A writer closed
   * without {@code finish()} leaves an incomplete file that no reader accepts (its header is zero).
   */
  public final void finish() {
    if (finished) {
      return;
    }
    StoreHeader h = finishBody();
    try {
      ByteBuffer b = ByteBuffer.wrap(h.toBytes());
      long pos = 0;
      while (b.hasRemaining()) {
        pos += channel.write(b, pos);
      }
      channel.force(false);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + path, e);
    }
    finished = true;
    close();
  }

  @Override
  public final void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close " + path, e);
    }
  }

  static void checkCount(String what, long got, long expected, Path path) {
    if (got != expected) {
      throw new IllegalStateException(
          path + ": wrote " + got + " " + what + ", expected " + expected);
    }
  }
}
