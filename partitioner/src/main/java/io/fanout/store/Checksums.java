package io.fanout.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32C;

/**
 * CRC32C checksums of whole files, written in manifests as 8 lower-case hex digits, and the SHA-256
 * fingerprints that identify requests, stores and models.
 */
public final class Checksums {
  private Checksums() {}

  /** The CRC32C of the file's bytes as 8 hex digits. */
  public static String crc32c(Path file) {
    CRC32C crc = new CRC32C();
    ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      while (ch.read(buf) >= 0) {
        buf.flip();
        crc.update(buf);
        buf.clear();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    return hex(crc.getValue());
  }

  /**
   * The CRC32C of each file, in the order given, read on {@code min(files, cores)} threads (the
   * largest files first, so that the threads finish together).
   *
   * @throws UncheckedIOException when a file cannot be read
   */
  public static String[] crc32c(List<Path> files) {
    String[] out = new String[files.size()];
    int threads = Math.min(files.size(), Runtime.getRuntime().availableProcessors());
    if (threads <= 1) {
      for (int i = 0; i < out.length; i++) {
        out[i] = crc32c(files.get(i));
      }
      return out;
    }
    long[] sizes = new long[out.length];
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < out.length; i++) {
      sizes[i] = sizeOrZero(files.get(i));
      order.add(i);
    }
    order.sort(Comparator.comparingLong((Integer i) -> sizes[i]).reversed());
    ExecutorService pool =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t = new Thread(r, "fanout-crc32c");
              t.setDaemon(true);
              return t;
            });
    try {
      List<Future<String>> done = new ArrayList<>(Collections.nCopies(out.length, null));
      for (int i : order) {
        Path f = files.get(i);
        done.set(i, pool.submit(() -> crc32c(f)));
      }
      for (int i = 0; i < out.length; i++) {
        out[i] = done.get(i).get();
      }
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while checking " + files.size() + " files", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      if (e.getCause() instanceof Error er) {
        throw er;
      }
      throw new IllegalStateException(e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  private static long sizeOrZero(Path f) {
    try {
      return Files.size(f);
    } catch (IOException e) {
      return 0; // reported by the read
    }
  }

  /** SHA-256 of {@code bytes} as 64 lower-case hex digits. */
  public static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK lacks SHA-256", e);
    }
  }

  /** SHA-256 of the UTF-8 bytes of {@code s} as 64 lower-case hex digits. */
  public static String sha256(String s) {
    return sha256(s.getBytes(StandardCharsets.UTF_8));
  }

  /** A CRC32C value as written in manifests: 8 lower-case hex digits. */
  public static String hex(long crc) {
    return String.format(Locale.ROOT, "%08x", crc);
  }
}
