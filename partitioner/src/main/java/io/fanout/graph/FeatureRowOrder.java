package io.fanout.graph;

import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreHeader;
import io.fanout.store.StoreLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Where each dense id's feature row lies in a store's feature files: row {@code v} at position
 * {@code position(v)}, the files holding positions in order as they hold ids without a layout. A
 * store with a {@code feature_layout} keeps the positions in {@link StoreLayout#FEATURE_ORDER},
 * read here through its memory map (4 bytes an id, addressed by {@code long}); every reader of the
 * store's rows maps ids through it, so a layout moves bytes on disk and never changes a result.
 * Positions never leave their id's partition. Thread-safe for reads.
 */
public final class FeatureRowOrder {
  /** Header field offsets of {@link StoreLayout#FEATURE_ORDER}. */
  public static final int KIND = 12;

  public static final int NUM_VERTICES = 16;

  /** Rows at their own ids. */
  public static final FeatureRowOrder IDENTITY = new FeatureRowOrder(null, null, -1);

  private final int[] positions;
  private final ChunkedMapping mapped;
  private final int rows;

  private FeatureRowOrder(int[] positions, ChunkedMapping mapped, int rows) {
    this.positions = positions;
    this.mapped = mapped;
    this.rows = rows;
  }

  /** The order keeping row {@code v} at {@code positions[v]} (not copied). */
  public static FeatureRowOrder of(int[] positions) {
    return new FeatureRowOrder(positions, null, positions.length);
  }

  /** The order of a mapped {@link StoreLayout#FEATURE_ORDER} file, its header checked. */
  static FeatureRowOrder mapped(ChunkedMapping m, long vertices) {
    StoreHeader h = StoreFileMaps.header(m, StoreLayout.ORDER_MAGIC);
    StoreFileMaps.expect(m, "num_vertices", h.getLong(NUM_VERTICES), vertices);
    return new FeatureRowOrder(null, m, (int) vertices);
  }

  /** The length of a {@link StoreLayout#FEATURE_ORDER} file for {@code vertices} ids. */
  public static long fileLength(long vertices) {
    return StoreLayout.HEADER_BYTES + 4 * vertices;
  }

  /** Whether every row lies at its own id. */
  public boolean isIdentity() {
    return positions == null && mapped == null;
  }

  /** The ids the order places, or -1 for {@link #IDENTITY} (any number). */
  public int rows() {
    return rows;
  }

  /** The position of the row of dense id {@code v}. */
  public int position(int v) {
    if (positions != null) {
      return positions[v];
    }
    return mapped == null ? v : mapped.getInt(StoreLayout.HEADER_BYTES + 4L * v);
  }

  /**
   * Writes {@code positions} (a permutation of {@code 0 .. positions.length)}) as a {@link
   * StoreLayout#FEATURE_ORDER} file of layout {@code kind}.
   */
  public static void write(Path file, int[] positions, FeatureLayoutKind kind) {
    byte[] header =
        StoreHeader.create(StoreLayout.ORDER_MAGIC)
            .putInt(KIND, kind.ordinal())
            .putLong(NUM_VERTICES, positions.length)
            .toBytes();
    ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
    try (FileChannel ch =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      buf.put(header);
      for (int p : positions) {
        if (!buf.hasRemaining()) {
          drain(ch, buf);
        }
        buf.putInt(p);
      }
      drain(ch, buf);
      ch.force(true);
    } catch (IOException e) {
      throw new UncheckedIOException("writing " + file + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * Starts a {@link StoreLayout#FEATURE_ORDER} file of layout {@code kind} for {@code vertices}
   * ids: its header, and its full length, so that each partition's positions can then be written at
   * their own offset ({@link #writeSlice}), by any number of writers in any order. Once every
   * partition's slice is written the file is byte for byte the one {@link #write} writes.
   */
  public static void start(Path file, long vertices, FeatureLayoutKind kind) {
    byte[] header =
        StoreHeader.create(StoreLayout.ORDER_MAGIC)
            .putInt(KIND, kind.ordinal())
            .putLong(NUM_VERTICES, vertices)
            .toBytes();
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(0);
      f.write(header);
      f.setLength(fileLength(vertices));
    } catch (IOException e) {
      throw new UncheckedIOException("writing " + file + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * Writes the positions of ids {@code first .. first + positions.length - 1} ({@code positions[v -
   * first]}) at their place in a file {@link #start} began, and forces them to disk. Writing the
   * same slice again writes the same bytes.
   */
  public static void writeSlice(Path file, long first, int[] positions) {
    ByteBuffer buf =
        ByteBuffer.allocateDirect(Math.min(1 << 20, Math.max(4, 4 * positions.length)))
            .order(ByteOrder.LITTLE_ENDIAN);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      long at = StoreLayout.HEADER_BYTES + 4 * first;
      for (int i = 0; i < positions.length; ) {
        for (; i < positions.length && buf.hasRemaining(); i++) {
          buf.putInt(positions[i]);
        }
        buf.flip();
        while (buf.hasRemaining()) {
          at += ch.write(buf, at);
        }
        buf.clear();
      }
      ch.force(true);
    } catch (IOException e) {
      throw new UncheckedIOException("writing " + file + " failed: " + e.getMessage(), e);
    }
  }

  private static void drain(FileChannel ch, ByteBuffer buf) throws IOException {
    buf.flip();
    while (buf.hasRemaining()) {
      ch.write(buf);
    }
    buf.clear();
  }

  /**
   * Checks that {@code positions} is a permutation keeping every id in its partition ({@code
   * starts[p] <= v < starts[p+1]} implies the same of {@code positions[v]}).
   *
   * @throws InvalidInputException naming {@code what} and the first id that breaks it
   */
  public static void check(int[] positions, long[] starts, String what) {
    for (int part = 0; part + 1 < starts.length; part++) {
      int lo = (int) starts[part];
      checkPartition(java.util.Arrays.copyOfRange(positions, lo, (int) starts[part + 1]), lo, what);
    }
  }

  /**
   * Checks that the positions of one partition's ids {@code first .. first + positions.length - 1}
   * ({@code positions[v - first]}) are a permutation of those ids.
   *
   * @throws InvalidInputException naming {@code what} and the first id that breaks it
   */
  public static void checkPartition(int[] positions, long first, String what) {
    boolean[] seen = new boolean[positions.length];
    for (int i = 0; i < positions.length; i++) {
      long r = positions[i] - first;
      if (r < 0 || r >= positions.length || seen[(int) r]) {
        throw new InvalidInputException(
            what
                + ": id "
                + (first + i)
                + " at position "
                + positions[i]
                + "; a feature layout must be a permutation keeping each row in its partition");
      }
      seen[(int) r] = true;
    }
  }
}
