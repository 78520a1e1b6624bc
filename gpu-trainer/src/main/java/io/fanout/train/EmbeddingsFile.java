package io.fanout.train;

import io.fanout.nn.EmbeddingTable;
import io.fanout.store.AtomicFiles;
import io.fanout.store.InvalidInputException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * One learned embedding table ({@link EmbeddingTable}) with its sparse Adam state, beside a
 * checkpoint of a one-type or a typed model ({@link #beside}), replaced atomically (a temporary
 * file, forced, renamed).
 *
 * <pre>
 * 0   8 bytes  magic FNOEMB01
 * 8   int32    version 1
 * 12  int32    dim
 * 16  int64    rows
 * 24  int64    optimizer step of the table
 * 32  int32    epochs completed (equal to its checkpoint's)
 * 36  int32    CRC32C of everything after the header
 * 40..63       zero
 * 64           float32[rows x dim] values, then the first moments, then the second moments
 * </pre>
 *
 * Streamed in chunks, so a table may pass 2^31 elements.
 */
public final class EmbeddingsFile {
  private static final byte[] MAGIC = "FNOEMB01".getBytes(StandardCharsets.US_ASCII);
  private static final int HEADER = 64;
  private static final int CHUNK = 1 << 20; // floats per write

  private EmbeddingsFile() {}

  /**
   * The file of the embedding table of type {@code type} (0 on a one-type store) beside the
   * checkpoint {@code name} of {@code modelDir}: {@code checkpoint.emb-0.bin} for {@code
   * checkpoint.bin}, {@code best.emb-0.bin} for {@code best.bin}.
   */
  public static Path beside(Path modelDir, String name, int type) {
    String base = name.endsWith(".bin") ? name.substring(0, name.length() - 4) : name;
    return modelDir.resolve(base + ".emb-" + type + ".bin");
  }

  public static void write(Path file, EmbeddingTable table, int epochs) {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      Files.createDirectories(file.getParent());
      CRC32C crc = new CRC32C();
      try (FileChannel ch =
          FileChannel.open(
              tmp,
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.WRITE)) {
        ch.position(HEADER);
        ByteBuffer buf = ByteBuffer.allocate(4 * CHUNK).order(ByteOrder.LITTLE_ENDIAN);
        for (int which = 0; which < 3; which++) {
          for (float[] chunk : table.chunks(which)) {
            for (int at = 0; at < chunk.length; at += CHUNK) {
              int n = Math.min(CHUNK, chunk.length - at);
              buf.clear();
              buf.asFloatBuffer().put(chunk, at, n);
              buf.limit(4 * n);
              crc.update(buf.duplicate());
              while (buf.hasRemaining()) {
                ch.write(buf);
              }
            }
          }
        }
        ByteBuffer head = ByteBuffer.allocate(HEADER).order(ByteOrder.LITTLE_ENDIAN);
        head.put(MAGIC).putInt(1).putInt(table.dim()).putLong(table.rows()).putLong(table.step());
        head.putInt(epochs).putInt((int) crc.getValue());
        head.position(0).limit(HEADER);
        ch.position(0);
        while (head.hasRemaining()) {
          ch.write(head);
        }
        ch.force(true);
      }
      AtomicFiles.replace(tmp, file);
    } catch (IOException e) {
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException ignored) {
        // the write's own failure is the one to report
      }
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /**
   * Reads {@code file} into {@code table} (same rows and dim), checking its CRC and that it was
   * written with {@code epochs} epochs completed.
   */
  public static void read(Path file, EmbeddingTable table, int epochs) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer head = ByteBuffer.allocate(HEADER).order(ByteOrder.LITTLE_ENDIAN);
      while (head.hasRemaining() && ch.read(head) > 0) {}
      head.flip();
      byte[] magic = new byte[8];
      if (head.remaining() < HEADER) {
        throw new InvalidInputException(file + " is not a Fanout embeddings file (too short)");
      }
      head.get(magic);
      if (!Arrays.equals(magic, MAGIC) || head.getInt() != 1) {
        throw new InvalidInputException(
            file + " is not a Fanout embeddings file: expected magic FNOEMB01 version 1");
      }
      int dim = head.getInt();
      long rows = head.getLong();
      long step = head.getLong();
      int fileEpochs = head.getInt();
      int crcStored = head.getInt();
      if (dim != table.dim() || rows != table.rows()) {
        throw new InvalidInputException(
            file
                + " holds "
                + rows
                + " x "
                + dim
                + " embeddings, the model expects "
                + table.rows()
                + " x "
                + table.dim());
      }
      if (fileEpochs != epochs) {
        throw new InvalidInputException(
            file
                + " was written after "
                + fileEpochs
                + " epochs but its checkpoint after "
                + epochs
                + " (an interrupted checkpoint write): train again from the checkpoint before");
      }
      long expected = HEADER + 12L * rows * dim;
      if (ch.size() != expected) {
        throw new InvalidInputException(
            file + " is " + ch.size() + " bytes, expected " + expected + " (truncated?)");
      }
      CRC32C crc = new CRC32C();
      ByteBuffer buf = ByteBuffer.allocate(4 * CHUNK).order(ByteOrder.LITTLE_ENDIAN);
      for (int which = 0; which < 3; which++) {
        for (float[] chunk : table.chunks(which)) {
          for (int at = 0; at < chunk.length; at += CHUNK) {
            int n = Math.min(CHUNK, chunk.length - at);
            buf.clear().limit(4 * n);
            while (buf.hasRemaining()) {
              if (ch.read(buf) < 0) {
                throw new InvalidInputException(file + " ends early");
              }
            }
            buf.flip();
            crc.update(buf.duplicate());
            buf.asFloatBuffer().get(chunk, at, n);
          }
        }
      }
      if ((int) crc.getValue() != crcStored) {
        throw new InvalidInputException(file + " fails its CRC32C check (corrupt file)");
      }
      table.restoreStep(step);
    } catch (NoSuchFileException e) {
      throw new InvalidInputException(
          "no "
              + file.getFileName()
              + " in "
              + file.getParent()
              + ": the model's learned"
              + " embeddings are missing");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
