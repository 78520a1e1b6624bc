package io.fanout.store;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The 64-byte header that starts every graph store binary file ({@code docs/formats.md}): an 8-byte
 * ASCII magic, an int32 format version, then file-specific fields at fixed offsets, zero-padded.
 *
 * <p>Writers fill a header with {@link #putInt}/{@link #putLong} and {@link #toBytes()}; readers
 * parse one with {@link #parse}, which checks magic and version and names the file on failure.
 */
public final class StoreHeader {
  /** Offset of the first file-specific field. */
  public static final int FIELDS = 12;

  private final ByteBuffer buf;

  private StoreHeader(ByteBuffer buf) {
    this.buf = buf;
  }

  /** A new header with {@code magic} and the current format version. */
  public static StoreHeader create(byte[] magic) {
    if (magic.length != 8) {
      throw new IllegalArgumentException("magic must be 8 bytes");
    }
    ByteBuffer b = ByteBuffer.allocate(StoreLayout.HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.put(0, magic);
    b.putInt(8, StoreLayout.FORMAT_VERSION);
    return new StoreHeader(b);
  }

  /**
   * Parses and checks a header read from {@code file}.
   *
   * @param bytes the first bytes of the file (fewer than 64 means the file is truncated)
   * @param fileLength the file's length in bytes
   * @throws InvalidInputException naming {@code file} on a short file, a wrong magic or version
   */
  public static StoreHeader parse(String file, byte[] bytes, byte[] magic, long fileLength) {
    if (fileLength < StoreLayout.HEADER_BYTES || bytes.length < StoreLayout.HEADER_BYTES) {
      throw new InvalidInputException(
          file
              + ": truncated: "
              + fileLength
              + " bytes, shorter than the "
              + StoreLayout.HEADER_BYTES
              + "-byte header");
    }
    byte[] got = Arrays.copyOf(bytes, 8);
    if (!Arrays.equals(got, magic)) {
      throw new InvalidInputException(
          file
              + ": bad magic '"
              + printable(got)
              + "', expected '"
              + new String(magic, StandardCharsets.US_ASCII)
              + "' (not a Fanout store file or corrupted)");
    }
    ByteBuffer b =
        ByteBuffer.wrap(Arrays.copyOf(bytes, StoreLayout.HEADER_BYTES))
            .order(ByteOrder.LITTLE_ENDIAN);
    int version = b.getInt(8);
    if (version != StoreLayout.FORMAT_VERSION) {
      throw new InvalidInputException(
          file
              + ": format version "
              + version
              + ", this reader supports version "
              + StoreLayout.FORMAT_VERSION);
    }
    return new StoreHeader(b);
  }

  public StoreHeader putInt(int offset, int value) {
    checkField(offset, 4);
    buf.putInt(offset, value);
    return this;
  }

  public StoreHeader putLong(int offset, long value) {
    checkField(offset, 8);
    buf.putLong(offset, value);
    return this;
  }

  public int getInt(int offset) {
    checkField(offset, 4);
    return buf.getInt(offset);
  }

  public long getLong(int offset) {
    checkField(offset, 8);
    return buf.getLong(offset);
  }

  /** The 64 header bytes. */
  public byte[] toBytes() {
    byte[] out = new byte[StoreLayout.HEADER_BYTES];
    buf.get(0, out);
    return out;
  }

  private static void checkField(int offset, int width) {
    if (offset < FIELDS || offset + width > StoreLayout.HEADER_BYTES) {
      throw new IllegalArgumentException("header field at " + offset + " out of range");
    }
  }

  private static String printable(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) {
      sb.append(x >= 32 && x < 127 ? (char) x : '?');
    }
    return sb.toString();
  }
}
