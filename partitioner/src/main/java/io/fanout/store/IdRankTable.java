package io.fanout.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A read-only, memory-mapped hash table from a store partition's original vertex ids to their rank
 * in that partition (the vertex's dense id minus the partition's first), written by {@link
 * IdRankTableWriter}. {@code prepare} writes one per partition into its staging folder, so that the
 * tasks writing the csr files can turn edge endpoints into dense ids themselves instead of joining
 * the edges with the id map; the tables are not part of the published store.
 *
 * <p>Layout (little-endian): a 64-byte header (the magic {@link #MAGIC}, the number of ids, zeros),
 * then a power-of-two number of 16-byte slots, each {@code (id: int64, rank + 1: int32, 0: int32)},
 * rank + 1 = 0 marking an empty slot. An id lives in the first free slot at or after its home slot
 * ({@link #slot}; linear probing); the load is at most 3/4, so a lookup reads about two slots,
 * usually within one cache line. Safe for concurrent readers.
 *
 * <p>A variant that read a bucket's four slots (one cache line) without branching made {@code
 * bench-prepare --num-vertices 5000000 --num-edges 50000000 --id-lookup task} slower (83.1 s
 * against 75.2 s, one run each under JFR), so the probe stays linear.
 */
public final class IdRankTable {
  /** "FOIDRANK" read as a little-endian long. */
  public static final long MAGIC = 0x4b4e415244494f46L;

  static final int HEADER_BYTES = 64;
  static final int SLOT_BYTES = 16;
  static final int MIN_SLOTS = 4;

  /** The most ids a table holds: its slots stay within one mapped buffer (1 GiB). */
  public static final long MAX_IDS = 3L * ((1L << 26) - 1) / 4;

  private final MappedByteBuffer buf;
  private final long ids;
  private final long slotMask;

  private IdRankTable(MappedByteBuffer buf, long ids, long slots) {
    this.buf = buf;
    this.ids = ids;
    this.slotMask = slots - 1;
  }

  /** Maps the table at {@code path}; fails naming the file when it is not one. */
  public static IdRankTable open(Path path) {
    try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
      long size = ch.size();
      long slots = (size - HEADER_BYTES) / SLOT_BYTES;
      if (size < HEADER_BYTES + MIN_SLOTS * SLOT_BYTES
          || size > HEADER_BYTES + SLOT_BYTES * capacity(MAX_IDS)
          || HEADER_BYTES + slots * SLOT_BYTES != size
          || Long.bitCount(slots) != 1) {
        throw new InvalidInputException(
            path + ": " + size + " bytes, expected an id rank table (64 + 16 x 2^k bytes)");
      }
      MappedByteBuffer b = ch.map(FileChannel.MapMode.READ_ONLY, 0, size);
      b.order(ByteOrder.LITTLE_ENDIAN);
      if (b.getLong(0) != MAGIC) {
        throw new InvalidInputException(path + ": not an id rank table (bad magic)");
      }
      long n = b.getLong(8);
      if (n < 0 || n > slots - 1) {
        throw new InvalidInputException(
            path + ": holds " + n + " ids in " + slots + " slots, expected fewer ids than slots");
      }
      return new IdRankTable(b, n, slots);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot map " + path, e);
    }
  }

  /** The number of ids in the table. */
  public long size() {
    return ids;
  }

  /** The rank of {@code id} in its partition, or -1 when the table does not hold it. */
  public int rank(long id) {
    long s = slot(id, slotMask);
    while (true) {
      int at = (int) (HEADER_BYTES + (s << 4));
      int r = buf.getInt(at + 8);
      if (r == 0) {
        return -1;
      }
      if (buf.getLong(at) == id) {
        return r - 1;
      }
      s = (s + 1) & slotMask;
    }
  }

  /** The home slot of {@code id}: a 64-bit finalizer mix (SplitMix64's), masked. */
  static long slot(long id, long slotMask) {
    long z = id;
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return (z ^ (z >>> 31)) & slotMask;
  }

  /** Slots for {@code ids} ids: the power of two at least {@code ids + ids / 3 + 1}, at least 4. */
  static long capacity(long ids) {
    long need = ids + ids / 3 + 1;
    return Math.max(MIN_SLOTS, Long.highestOneBit(need - 1) << 1);
  }

  /** The bytes of a table of {@code ids} ids, for plans. */
  public static long fileBytes(long ids) {
    return HEADER_BYTES + SLOT_BYTES * capacity(ids);
  }
}
