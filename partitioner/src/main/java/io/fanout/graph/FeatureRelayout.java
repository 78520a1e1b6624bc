package io.fanout.graph;

import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
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
   * Lays out the feature files a writer staged in {@code dataDir} before its manifest exists
   * ({@code prepare --feature-layout}): the positions of {@code kind} over the staged CSR and nodes
   * files (partition {@code p} holds {@code counts[p]} vertices and {@code edges[p]} CSR entries),
   * then {@link #write}. The rows keep the encoding they were staged in (their size is read from
   * the first feature file's header).
   */
  public static void writeStaged(
      Path dataDir, long[] counts, long[] edges, FeatureLayoutKind kind, int threads) {
    StoreManifest graph = new StoreManifest();
    long[] starts = new long[counts.length + 1];
    for (int p = 0; p < counts.length; p++) {
      graph.partitionTable.add(new StoreManifest.Partition(p, starts[p], counts[p], edges[p]));
      starts[p + 1] = starts[p] + counts[p];
    }
    graph.partitions = counts.length;
    graph.vertices = starts[counts.length];
    graph.edges = java.util.Arrays.stream(edges).sum();
    graph.featureDim = 0; // the graph only: the rows are moved as bytes
    int[] positions;
    try (GraphStore g = GraphStore.staged(dataDir, graph)) {
      positions = positions(g, kind, threads);
    }
    write(dataDir, starts, stagedRowBytes(dataDir), positions, kind, threads);
  }

  /**
   * The row size the header of the first feature file under {@code dataDir} records: the staged
   * encoding's, which may differ from the source store's.
   */
  public static int stagedRowBytes(Path dataDir) {
    Path file = dataDir.resolve(StoreLayout.featuresFile(0));
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
        (p, lo, hi) ->
            rewrite(dataDir.resolve(StoreLayout.featuresFile(p)), lo, hi, rowBytes, positions));
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

  private static Void rewrite(Path file, int lo, int hi, int rowBytes, int[] positions)
      throws IOException {
    int[] rowAt = new int[hi - lo];
    for (int v = lo; v < hi; v++) {
      rowAt[positions[v] - lo] = v - lo;
    }
    Path tmp = file.resolveSibling(file.getFileName() + ".layout");
    ChunkedMapping src = new ChunkedMapping(file);
    byte[] row = new byte[rowBytes];
    int perBuffer = Math.max(1, (4 << 20) / Math.max(1, rowBytes));
    ByteBuffer buf = ByteBuffer.allocateDirect(perBuffer * Math.max(1, rowBytes));
    try (FileChannel out =
        FileChannel.open(
            tmp,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      buf.put(src.head(StoreLayout.HEADER_BYTES));
      for (int pos = 0; pos < rowAt.length; pos++) {
        if (buf.remaining() < rowBytes) {
          drain(out, buf);
        }
        src.getBytes(StoreLayout.HEADER_BYTES + (long) rowAt[pos] * rowBytes, row, 0, rowBytes);
        buf.put(row);
      }
      drain(out, buf);
      out.force(true);
    } catch (IOException e) {
      Files.deleteIfExists(tmp);
      throw new UncheckedIOException("writing " + tmp + " failed: " + e.getMessage(), e);
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return null;
  }

  private static void drain(FileChannel ch, ByteBuffer buf) throws IOException {
    buf.flip();
    while (buf.hasRemaining()) {
      ch.write(buf);
    }
    buf.clear();
  }
}
