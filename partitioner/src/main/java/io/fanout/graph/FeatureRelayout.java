package io.fanout.graph;

import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.StoreLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Rewrites the feature files of a store folder in a {@link FeatureLayoutKind}: each partition's
 * {@code features/part-NNNNN.feat} gets its rows in the layout's order (the header unchanged) and
 * {@link StoreLayout#FEATURE_ORDER} records where each id's row went. A file is written next to the
 * old one and moved over it, so a hard link to another store's file is replaced, never written
 * through. Partitions are rewritten in parallel, each alone: the files do not depend on the thread
 * count.
 *
 * <p>Two paths write the same files: {@link #positions} over the whole graph then {@link #write}
 * (an {@code int} per vertex of the graph in one JVM: tests and small graphs), and {@link
 * PartitionRelayout}, one partition at a time from its own staged files, which {@code prepare} and
 * {@code quantize} run in one Spark task per partition (memory in proportion to a partition).
 */
public final class FeatureRelayout {
  private FeatureRelayout() {}

  /**
   * The positions of {@code kind} over the graph of {@code source} (its CSR and splits); null for
   * {@link FeatureLayoutKind#IDENTITY}.
   */
  public static int[] positions(GraphStore source, FeatureLayoutKind kind, int threads) {
    return switch (kind) {
      case IDENTITY -> null;
      case NEIGHBORHOOD ->
          NeighborhoodOrder.positions(
              source.csr(), source.vertices(), vertexStarts(source), threads);
      case SEED_GROUPS ->
          SeedGroupOrder.positions(source.csr(), source.vertices(), vertexStarts(source), threads);
    };
  }

  /**
   * The positions of {@code kind} over one partition, ids {@code lo .. hi-1}: {@code positions[v -
   * lo]}, a permutation of {@code [lo, hi)}. It reads {@code csr} and {@code splits} only at the
   * partition's ids, so a partition's own files are enough ({@link PartitionRelayout}); {@link
   * #positions} is this over every partition.
   *
   * @throws IllegalArgumentException for {@link FeatureLayoutKind#IDENTITY}, which moves nothing
   */
  public static int[] partitionPositions(
      CsrGraph csr, VertexTable splits, int lo, int hi, FeatureLayoutKind kind) {
    return switch (kind) {
      case IDENTITY -> throw new IllegalArgumentException("the identity layout moves no row");
      case NEIGHBORHOOD -> SeedLayouts.partition(csr, splits, lo, hi, NeighborhoodOrder::order);
      case SEED_GROUPS -> SeedLayouts.partition(csr, splits, lo, hi, SeedGroupOrder::order);
    };
  }

  /**
   * Lays out the feature files a writer staged in {@code dataDir} before its manifest exists, in
   * this JVM on up to {@code threads} threads: {@link PartitionRelayout} on every partition
   * (partition {@code p} holds {@code counts[p]} vertices and {@code edges[p]} CSR entries), each
   * alone, as {@code prepare} and {@code quantize} run it in one Spark task per partition. The
   * files are those {@link #positions} then {@link #write} give, whatever the thread count.
   */
  public static void writeStaged(
      Path dataDir, long[] counts, long[] edges, FeatureLayoutKind kind, int threads) {
    PartitionRelayout.Staged staged = new PartitionRelayout.Staged(counts, edges);
    int rowBytes = stagedRowBytes(dataDir);
    PartitionRelayout.start(dataDir, staged, kind);
    PartitionTasks.run(
        staged.starts(),
        threads,
        "writing a feature layout",
        (p, lo, hi) -> PartitionRelayout.layOut(dataDir, staged, p, rowBytes, kind));
    PartitionRelayout.finish(dataDir, staged);
  }

  /**
   * The row size the header of the first feature file under {@code dataDir} records: the staged
   * encoding's, which may differ from the source store's.
   */
  public static int stagedRowBytes(Path dataDir) {
    return rowBytes(dataDir.resolve(StoreLayout.featuresFile(0)));
  }

  /** The row size the header of feature file {@code file} records. */
  static int rowBytes(Path file) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer head =
          ByteBuffer.allocate(StoreLayout.HEADER_BYTES).order(java.nio.ByteOrder.LITTLE_ENDIAN);
      while (head.hasRemaining() && ch.read(head, head.position()) >= 0) {}
      return head.getInt(io.fanout.store.FeatureFileWriter.ROW_BYTES);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the header of " + file, e);
    }
  }

  /**
   * Moves the rows of the feature files under {@code dataDir} (rows at their ids, {@code rowBytes}
   * bytes each, partitions as {@code starts}) to {@code positions} and writes the order file.
   */
  public static void write(
      Path dataDir,
      long[] starts,
      int rowBytes,
      int[] positions,
      FeatureLayoutKind kind,
      int threads) {
    FeatureRowOrder.check(positions, starts, "feature layout " + kind.id());
    PartitionTasks.run(
        starts,
        threads,
        "writing a feature layout",
        (p, lo, hi) -> {
          Path file = dataDir.resolve(StoreLayout.featuresFile(p));
          rewrite(file, file, lo, rowBytes, java.util.Arrays.copyOfRange(positions, lo, hi));
        });
    FeatureRowOrder.write(dataDir.resolve(StoreLayout.FEATURE_ORDER), positions, kind);
  }

  /** The store's partitions as id ranges: the first id of each, then the number of ids. */
  public static long[] vertexStarts(GraphStore store) {
    var table = store.manifest().partitionTable;
    long[] starts = new long[table.size() + 1];
    for (int p = 0; p < table.size(); p++) {
      starts[p + 1] = starts[p] + table.get(p).numVertices;
    }
    return starts;
  }

  /**
   * Writes the rows of {@code src} (a partition's feature file, rows at their ids from {@code lo})
   * at {@code positions} ({@code positions[v - lo]}) into {@code file}: a file written next to it,
   * then moved over it, so a hard link to another store's file is replaced, never written through.
   */
  static void rewrite(Path src, Path file, int lo, int rowBytes, int[] positions)
      throws IOException {
    int[] rowAt = new int[positions.length];
    for (int i = 0; i < positions.length; i++) {
      rowAt[positions[i] - lo] = i;
    }
    Path tmp = file.resolveSibling(file.getFileName() + ".layout");
    ChunkedMapping in = new ChunkedMapping(src);
    byte[] row = new byte[rowBytes];
    int perBuffer = Math.max(1, (4 << 20) / Math.max(1, rowBytes));
    ByteBuffer buf = ByteBuffer.allocateDirect(perBuffer * Math.max(1, rowBytes));
    try (FileChannel out =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      buf.put(in.head(StoreLayout.HEADER_BYTES));
      for (int pos = 0; pos < rowAt.length; pos++) {
        if (buf.remaining() < rowBytes) {
          drain(out, buf);
        }
        in.getBytes(StoreLayout.HEADER_BYTES + (long) rowAt[pos] * rowBytes, row, 0, rowBytes);
        buf.put(row);
      }
      drain(out, buf);
      out.force(true);
    } catch (IOException e) {
      Files.deleteIfExists(tmp);
      throw new UncheckedIOException("writing " + tmp + " failed: " + e.getMessage(), e);
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static void drain(FileChannel ch, ByteBuffer buf) throws IOException {
    buf.flip();
    while (buf.hasRemaining()) {
      ch.write(buf);
    }
    buf.clear();
  }
}
