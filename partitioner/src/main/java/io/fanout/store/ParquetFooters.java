package io.fanout.store;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.Encoding;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;

/**
 * Makes the footer of a Parquet file written by parquet-mr independent of the JVM that wrote it.
 *
 * <p>parquet-mr collects each column chunk's encodings in a {@code HashSet} of enum constants,
 * whose iteration order follows identity hash codes and so differs between JVM processes (a driver
 * and an executor, say). The same rows therefore give footers that list the same encodings in
 * different orders. {@link #canonicalize} sorts every such list by the encoding's Thrift value and
 * rewrites the footer in place, so the same rows give the same bytes on every JVM.
 */
public final class ParquetFooters {
  private ParquetFooters() {}

  private static final byte[] MAGIC = "PAR1".getBytes(StandardCharsets.US_ASCII);

  /**
   * Sorts the encoding list of every column chunk in {@code file}'s footer. A no-op when they are
   * sorted already.
   *
   * @throws InvalidInputException when the file does not end like a plain Parquet file
   */
  public static void canonicalize(Path file) throws IOException {
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      long size = ch.size();
      if (size < 12) {
        throw new InvalidInputException(file + " is too short to be a Parquet file");
      }
      ByteBuffer tail = readAt(ch, size - 8, 8);
      int footerLength = tail.getInt(0);
      for (int i = 0; i < 4; i++) {
        if (tail.get(4 + i) != MAGIC[i]) {
          throw new InvalidInputException(file + " does not end with the Parquet magic PAR1");
        }
      }
      long footerStart = size - 8 - footerLength;
      if (footerLength <= 0 || footerStart < 4) {
        throw new InvalidInputException(file + " has a footer length out of range");
      }
      byte[] footer = readAt(ch, footerStart, footerLength).array();
      FileMetaData meta = Util.readFileMetaData(new ByteArrayInputStream(footer));
      if (!sortEncodings(meta)) {
        return;
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream(footer.length);
      Util.writeFileMetaData(meta, out);
      byte[] rewritten = out.toByteArray();
      ByteBuffer newTail = ByteBuffer.allocate(rewritten.length + 8).order(ByteOrder.LITTLE_ENDIAN);
      newTail.put(rewritten).putInt(rewritten.length).put(MAGIC).flip();
      ch.truncate(footerStart);
      long pos = footerStart;
      while (newTail.hasRemaining()) {
        pos += ch.write(newTail, pos);
      }
      ch.force(false);
    }
  }

  /** Returns true when some list was out of order. */
  static boolean sortEncodings(FileMetaData meta) {
    boolean changed = false;
    for (RowGroup group : meta.getRow_groups()) {
      for (ColumnChunk chunk : group.getColumns()) {
        ColumnMetaData column = chunk.getMeta_data();
        if (column == null || column.getEncodings() == null) {
          continue;
        }
        List<Encoding> sorted = new ArrayList<>(column.getEncodings());
        sorted.sort(Comparator.comparingInt(Encoding::getValue));
        if (!sorted.equals(column.getEncodings())) {
          column.setEncodings(sorted);
          changed = true;
        }
      }
    }
    return changed;
  }

  private static ByteBuffer readAt(FileChannel ch, long position, int length) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
    while (b.hasRemaining()) {
      if (ch.read(b, position + b.position()) < 0) {
        throw new IOException("unexpected end of file");
      }
    }
    return b;
  }
}
