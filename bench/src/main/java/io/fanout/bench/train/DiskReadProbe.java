package io.fanout.bench.train;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The disk's own read rates on one file, with {@code O_DIRECT} (no page cache): block-aligned reads
 * of a fixed size at uniformly random aligned offsets, or the whole file front to back, on a number
 * of threads reading at once, each through its own channel.
 */
final class DiskReadProbe {
  private final Path file;
  private final long size;
  private final int block;
  private final int threads;

  DiskReadProbe(Path file, int threads) {
    this.file = file;
    this.threads = Math.max(1, threads);
    try {
      this.size = Files.size(file);
      this.block = (int) Math.max(512, Files.getFileStore(file).getBlockSize());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The file system's block size: every read's offset and size are multiples of it. */
  int block() {
    return block;
  }

  /** {@code bytes} rounded up to whole blocks. */
  int aligned(long bytes) {
    return (int) Math.max(block, (bytes + block - 1) / block * block);
  }

  /** {@code bytes} rounded to the nearest whole number of blocks, at least one. */
  int nearestBlocks(long bytes) {
    return (int) Math.max(block, (bytes + block / 2) / block * block);
  }

  /** What a measurement read: calls, bytes and seconds. */
  record Rate(long reads, long bytes, double seconds) {
    double bytesPerSecond() {
      return bytes / seconds;
    }

    double readsPerSecond() {
      return reads / seconds;
    }
  }

  /**
   * Reads of {@code requestBytes} (rounded up to whole blocks) at random aligned offsets for about
   * {@code seconds}.
   */
  Rate random(long requestBytes, double seconds, long seed) {
    int request = aligned(requestBytes);
    long slots = Math.max(1, (size - request) / block);
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    return run(
        (task, ch, buf) -> {
          SplittableRandom rnd = new SplittableRandom(seed * 31 + task);
          long reads = 0;
          long moved = 0;
          do {
            moved += fill(ch, buf, request, rnd.nextLong(slots) * block);
            reads++;
          } while (System.nanoTime() < deadline);
          return new long[] {reads, moved};
        },
        request);
  }

  /** The whole file read front to back in reads of {@code requestBytes}, split over the threads. */
  Rate sequential(long requestBytes) {
    int request = aligned(requestBytes);
    long chunks = (size + request - 1) / request;
    return run(
        (task, ch, buf) -> {
          long reads = 0;
          long moved = 0;
          for (long c = chunks * task / threads; c < chunks * (task + 1) / threads; c++) {
            moved += fill(ch, buf, aligned(Math.min(request, size - c * request)), c * request);
            reads++;
          }
          return new long[] {reads, moved};
        },
        request);
  }

  private interface Task {
    /** Returns the calls and the bytes they moved. */
    long[] run(int task, FileChannel ch, ByteBuffer buf) throws IOException;
  }

  private Rate run(Task task, int request) {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<long[]>> fs = new ArrayList<>();
      long t0 = System.nanoTime();
      for (int t = 0; t < threads; t++) {
        int id = t;
        fs.add(
            pool.submit(
                () -> {
                  ByteBuffer buf = ByteBuffer.allocateDirect(request + block).alignedSlice(block);
                  try (FileChannel ch =
                      FileChannel.open(file, StandardOpenOption.READ, ExtendedOpenOption.DIRECT)) {
                    return task.run(id, ch, buf);
                  }
                }));
      }
      long reads = 0;
      long moved = 0;
      for (Future<long[]> f : fs) {
        long[] r = f.get();
        reads += r[0];
        moved += r[1];
      }
      return new Rate(reads, moved, (System.nanoTime() - t0) / 1e9);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while measuring the disk", e);
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("measuring the disk failed: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** Reads {@code len} bytes at {@code at} (fewer at the end of the file); returns the count. */
  private int fill(FileChannel ch, ByteBuffer buf, int len, long at) throws IOException {
    buf.clear().limit(len);
    while (buf.hasRemaining()) {
      int got = ch.read(buf, at + buf.position());
      if (got <= 0 || buf.position() % block != 0) {
        break; // the end of the file
      }
    }
    return buf.position();
  }
}
