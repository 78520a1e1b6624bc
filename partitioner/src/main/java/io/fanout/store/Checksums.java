package io.fanout.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
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

  static String hex(long crc) {
    return String.format(Locale.ROOT, "%08x", crc);
  }
}
