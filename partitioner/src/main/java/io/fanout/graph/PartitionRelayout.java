package io.fanout.graph;

import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A feature layout written one partition at a time, from the partition's own staged files: what
 * {@code prepare --feature-layout} and {@code quantize --feature-layout} run in one Spark task per
 * partition, so that nothing in proportion to the graph is held in one place. {@link #start} (once,
 * before any partition) begins {@link StoreLayout#FEATURE_ORDER} at its full length; {@link
 * #layOut} (once per partition, in any order, on any machine that sees the folder) computes that
 * partition's positions from its {@code csr/} and {@code nodes/} files, rewrites its feature file
 * and writes its slice of the order file; {@link #finish} (once, after every partition) removes
 * what {@link #layOut} kept to be run again. The files are byte for byte those of {@link
 * FeatureRelayout#positions} then {@link FeatureRelayout#write}.
 *
 * <p>{@link #layOut} can be run again on a partition (a retried task): it first renames the
 * partition's feature file to {@code <file>.unordered} and reads the rows from there, so a second
 * run reads the rows at their ids, never the rows a first run moved.
 */
public final class PartitionRelayout {
  /** The suffix of a partition's feature file kept with its rows at their ids. */
  static final String UNORDERED = ".unordered";

  private PartitionRelayout() {}

  /**
   * The partitions of a staged graph, in id order: the vertices ({@code counts[p]}) and CSR entries
   * ({@code edges[p]}) of each. A few numbers per partition, sent to every task.
   */
  public record Staged(long[] counts, long[] edges) implements Serializable {
    public Staged {
      if (counts.length != edges.length) {
        throw new IllegalArgumentException(
            counts.length + " vertex counts for " + edges.length + " edge counts");
      }
    }

    public int partitions() {
      return counts.length;
    }

    /** The first id of each partition, then the number of ids. */
    public long[] starts() {
      long[] starts = new long[counts.length + 1];
      for (int p = 0; p < counts.length; p++) {
        starts[p + 1] = starts[p] + counts[p];
      }
      return starts;
    }

    /** The manifest of the graph alone, enough to open one partition's staged files. */
    StoreManifest graph() {
      StoreManifest m = new StoreManifest();
      long[] starts = starts();
      for (int p = 0; p < counts.length; p++) {
        m.partitionTable.add(new StoreManifest.Partition(p, starts[p], counts[p], edges[p]));
      }
      m.partitions = counts.length;
      m.vertices = starts[counts.length];
      m.edges = java.util.Arrays.stream(edges).sum();
      m.featureDim = 0; // the graph only: the rows are moved as bytes
      return m;
    }
  }

  /** Begins the order file of {@code kind} under {@code dataDir}, sized for the whole graph. */
  public static void start(Path dataDir, Staged staged, FeatureLayoutKind kind) {
    FeatureRowOrder.start(
        dataDir.resolve(StoreLayout.FEATURE_ORDER), staged.starts()[staged.partitions()], kind);
  }

  /**
   * Lays out partition {@code p}: its positions of {@code kind} from its staged CSR and splits
   * ({@link FeatureRelayout#partitionPositions}), its feature file's rows ({@code rowBytes} each)
   * moved to them, and its slice of the order file {@link #start} began written.
   */
  public static void layOut(
      Path dataDir, Staged staged, int p, int rowBytes, FeatureLayoutKind kind) {
    long first = staged.starts()[p];
    int lo = Math.toIntExact(first);
    int hi = Math.toIntExact(first + staged.counts()[p]);
    StorePartition part = StorePartition.of(dataDir, staged.graph(), p);
    int[] positions = FeatureRelayout.partitionPositions(part.csr(), splits(part), lo, hi, kind);
    FeatureRowOrder.checkPartition(positions, first, "feature layout " + kind.id());
    Path file = dataDir.resolve(StoreLayout.featuresFile(p));
    Path unordered = unordered(file);
    try {
      if (!Files.exists(unordered)) {
        Files.move(file, unordered, StandardCopyOption.ATOMIC_MOVE);
      }
      FeatureRelayout.rewrite(unordered, file, lo, rowBytes, positions);
    } catch (IOException e) {
      throw new UncheckedIOException("laying out " + file + " failed: " + e.getMessage(), e);
    }
    FeatureRowOrder.writeSlice(dataDir.resolve(StoreLayout.FEATURE_ORDER), first, positions);
  }

  /** Removes the feature files {@link #layOut} kept with their rows at their ids. */
  public static void finish(Path dataDir, Staged staged) {
    for (int p = 0; p < staged.partitions(); p++) {
      Path kept = unordered(dataDir.resolve(StoreLayout.featuresFile(p)));
      try {
        Files.deleteIfExists(kept);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot remove " + kept, e);
      }
    }
  }

  private static Path unordered(Path file) {
    return file.resolveSibling(file.getFileName() + UNORDERED);
  }

  /** The splits of the partition's own ids, the only ones a layout reads. */
  private static VertexTable splits(StorePartition part) {
    return new VertexTable() {
      @Override
      public int numVertices() {
        return (int) (part.firstVertex() + part.numVertices());
      }

      @Override
      public int label(int v) {
        return part.label(v);
      }

      @Override
      public byte split(int v) {
        return part.split(v);
      }
    };
  }
}
