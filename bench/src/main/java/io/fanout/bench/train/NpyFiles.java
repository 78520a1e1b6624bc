package io.fanout.bench.train;

import io.fanout.store.InvalidInputException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One-dimensional little-endian {@code float32} and {@code int32} arrays, and row-major {@code
 * float32} matrices, as NumPy {@code .npy} files (format version 1.0), which {@code numpy.load}
 * reads without any other library: the exchange format of the PyTorch peer benchmark ({@code
 * bench/torch_reference.py}).
 */
public final class NpyFiles {
  private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  private static final Pattern HEADER =
      Pattern.compile(
          "'descr': '([<>|][a-z][0-9]+)', 'fortran_order': False, 'shape': \\((\\d+),\\)");

  private static final Pattern MATRIX_HEADER =
      Pattern.compile("'descr': '<f4', 'fortran_order': False, 'shape': \\((\\d+), (\\d+)\\)");

  /** Bytes a matrix moves through one buffer at a time. */
  private static final int CHUNK = 16 << 20;

  private NpyFiles() {}

  /** A row-major {@code rows x cols} float matrix. */
  public record FloatMatrix(float[] data, int rows, int cols) {}

  /**
   * Writes the row-major {@code rows x cols} matrix {@code a} as a two-dimensional {@code <f4}
   * array, streaming it (the table may be larger than one byte buffer).
   */
  public static void writeMatrix(Path file, float[] a, int rows, int cols) {
    long n = (long) rows * cols;
    if (n > a.length) {
      throw new IllegalArgumentException(rows + " x " + cols + " > " + a.length + " values");
    }
    String dict =
        "{'descr': '<f4', 'fortran_order': False, 'shape': (" + rows + ", " + cols + "), }";
    try (FileChannel ch =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      writeFully(ch, header(dict));
      ByteBuffer buf = ByteBuffer.allocateDirect(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
      for (long off = 0; off < n; ) {
        int len = (int) Math.min(CHUNK / 4, n - off);
        buf.clear();
        buf.asFloatBuffer().put(a, (int) off, len);
        buf.limit(4 * len);
        writeFully(ch, buf);
        off += len;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** Reads a two-dimensional row-major {@code <f4} array written by {@link #writeMatrix}. */
  public static FloatMatrix readMatrix(Path file) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer head = ByteBuffer.allocate(MAGIC.length + 2).order(ByteOrder.LITTLE_ENDIAN);
      readFully(ch, head, file);
      head.flip();
      byte[] magic = new byte[MAGIC.length];
      head.get(magic);
      if (magic[0] != MAGIC[0] || magic[1] != 'N' || magic[6] != 1) {
        throw new InvalidInputException(file + ": not a version 1 .npy file");
      }
      ByteBuffer dict = ByteBuffer.allocate(Short.toUnsignedInt(head.getShort()));
      readFully(ch, dict, file);
      String text = new String(dict.array(), StandardCharsets.US_ASCII).trim();
      Matcher m = MATRIX_HEADER.matcher(text);
      if (!m.find()) {
        throw new InvalidInputException(
            file + ": expected a two-dimensional <f4 array, found header " + text);
      }
      long rows = Long.parseLong(m.group(1));
      long cols = Long.parseLong(m.group(2));
      long n = rows * cols;
      if (n > Integer.MAX_VALUE - 8 || ch.size() - ch.position() != 4 * n) {
        throw new InvalidInputException(
            file
                + ": header says "
                + rows
                + " x "
                + cols
                + " but "
                + (ch.size() - ch.position())
                + " bytes follow (or more than one array holds)");
      }
      float[] out = new float[(int) n];
      ByteBuffer buf = ByteBuffer.allocateDirect(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
      for (int off = 0; off < n; ) {
        int len = (int) Math.min(CHUNK / 4, n - off);
        buf.clear().limit(4 * len);
        readFully(ch, buf, file);
        buf.flip();
        buf.asFloatBuffer().get(out, off, len);
        off += len;
      }
      return new FloatMatrix(out, (int) rows, (int) cols);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  private static void readFully(FileChannel ch, ByteBuffer buf, Path file) throws IOException {
    while (buf.hasRemaining()) {
      if (ch.read(buf) < 0) {
        throw new InvalidInputException(file + ": truncated .npy file");
      }
    }
  }

  private static void writeFully(FileChannel ch, ByteBuffer buf) throws IOException {
    while (buf.hasRemaining()) {
      ch.write(buf);
    }
  }

  /** Magic, two length bytes, then {@code dict} padded with spaces and a newline to 64 bytes. */
  private static ByteBuffer header(String dict) {
    int unpadded = MAGIC.length + 2 + dict.length() + 1;
    int padded = (unpadded + 63) / 64 * 64;
    String header = dict + " ".repeat(padded - unpadded) + "\n";
    ByteBuffer head = ByteBuffer.allocate(padded).order(ByteOrder.LITTLE_ENDIAN);
    head.put(MAGIC)
        .putShort((short) header.length())
        .put(header.getBytes(StandardCharsets.US_ASCII));
    head.flip();
    return head;
  }

  /** Writes {@code a[0 .. n)} as a {@code <f4} array. */
  public static void writeFloats(Path file, float[] a, int n) {
    ByteBuffer body = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
    body.asFloatBuffer().put(a, 0, n);
    write(file, "<f4", n, body);
  }

  /** Writes {@code a[0 .. n)} as an {@code <i4} array. */
  public static void writeInts(Path file, int[] a, int n) {
    ByteBuffer body = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
    body.asIntBuffer().put(a, 0, n);
    write(file, "<i4", n, body);
  }

  /** Reads a one-dimensional {@code <f4} array. */
  public static float[] readFloats(Path file) {
    ByteBuffer body = read(file, "<f4");
    float[] out = new float[body.remaining() / 4];
    body.asFloatBuffer().get(out);
    return out;
  }

  /** Reads a one-dimensional {@code <i4} array. */
  public static int[] readInts(Path file) {
    ByteBuffer body = read(file, "<i4");
    int[] out = new int[body.remaining() / 4];
    body.asIntBuffer().get(out);
    return out;
  }

  private static void write(Path file, String descr, int n, ByteBuffer body) {
    String dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + n + ",), }";
    ByteBuffer head = header(dict);
    try (FileChannel ch =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      while (head.hasRemaining()) {
        ch.write(head);
      }
      while (body.hasRemaining()) {
        ch.write(body);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private static ByteBuffer read(Path file, String descr) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size > Integer.MAX_VALUE) {
        throw new InvalidInputException(file + ": " + size + " bytes, more than one array buffer");
      }
      ByteBuffer all = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
      while (all.hasRemaining() && ch.read(all) >= 0) {}
      all.flip();
      byte[] magic = new byte[MAGIC.length];
      if (all.remaining() < MAGIC.length + 2) {
        throw new InvalidInputException(file + ": not a .npy file (too short)");
      }
      all.get(magic);
      if (magic[0] != MAGIC[0] || magic[1] != 'N' || magic[6] != 1) {
        throw new InvalidInputException(file + ": not a version 1 .npy file");
      }
      int headerLen = Short.toUnsignedInt(all.getShort());
      byte[] header = new byte[headerLen];
      all.get(header);
      String text = new String(header, StandardCharsets.US_ASCII).trim();
      Matcher m = HEADER.matcher(text);
      if (!m.find() || !m.group(1).equals(descr)) {
        throw new InvalidInputException(
            file + ": expected a one-dimensional " + descr + " array, found header " + text);
      }
      long n = Long.parseLong(m.group(2));
      if (all.remaining() != 4 * n) {
        throw new InvalidInputException(
            file + ": header says " + n + " elements but " + all.remaining() + " bytes follow");
      }
      return all.slice().order(ByteOrder.LITTLE_ENDIAN);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
