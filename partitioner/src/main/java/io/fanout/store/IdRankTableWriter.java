package io.fanout.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes an {@link IdRankTable} of a known number of ids, given in rank order: the {@code i}-th id
 * added gets rank {@code i}. The slots are written through a memory map of the file, so the heap
 * holds nothing per id. Ids must be distinct (the caller checks); the file is complete after {@link
 * #finish()}.
 */
public final class IdRankTableWriter {
  private final Path path;
  private final long ids;
  private final long slotMask;
  private final FileChannel channel;
  private final MappedByteBuffer buf;
  private long added;

  public IdRankTableWriter(Path path, long ids) {
    if (ids < 0 || ids > IdRankTable.MAX_IDS) {
      throw new IllegalArgumentException(
          path + ": " + ids + " ids, an id rank table holds 0 .. " + IdRankTable.MAX_IDS);
    }
    this.path = path;
    this.ids = ids;
    long slots = IdRankTable.capacity(ids);
    this.slotMask = slots - 1;
    try {
      channel =
          FileChannel.open(
              path,
              StandardOpenOption.CREATE,
              StandardOpenOption.TRUNCATE_EXISTING,
              StandardOpenOption.READ,
              StandardOpenOption.WRITE);
      buf = channel.map(FileChannel.MapMode.READ_WRITE, 0, IdRankTable.fileBytes(ids));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + path, e);
    }
    buf.order(ByteOrder.LITTLE_ENDIAN);
  }

  /** Adds {@code id} with the next rank. */
  public void add(long id) {
    if (added == ids) {
      throw new IllegalStateException(path + ": more than the " + ids + " ids announced");
    }
    long s = IdRankTable.slot(id, slotMask);
    while (buf.getInt((int) (IdRankTable.HEADER_BYTES + (s << 4) + 8)) != 0) {
      s = (s + 1) & slotMask;
    }
    int at = (int) (IdRankTable.HEADER_BYTES + (s << 4));
    buf.putLong(at, id);
    buf.putInt(at + 8, (int) (added + 1));
    added++;
  }

  /** Writes the header and flushes the file to its device; fails unless every id was added. */
  public void finish() {
    if (added != ids) {
      throw new IllegalStateException(path + ": " + added + " ids added, " + ids + " announced");
    }
    buf.putLong(0, IdRankTable.MAGIC);
    buf.putLong(8, ids);
    buf.force();
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot close " + path, e);
    }
  }
}
