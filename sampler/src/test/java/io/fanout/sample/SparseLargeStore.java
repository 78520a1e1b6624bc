package io.fanout.sample;

import io.fanout.store.CsrFileWriter;
import io.fanout.store.FeatureFileWriter;
import io.fanout.store.NodesFileWriter;
import io.fanout.store.OutputCommit;
import io.fanout.store.StoreHeader;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.store.StoreOutput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A two-partition graph store whose edge positions and feature bytes pass 2^31 and 2^32, written as
 * sparse files (13 GB of CSR, 4.4 GB of features) so it needs a few MB of disk. Its content is a
 * function of the ids, so tests know every value they read:
 *
 * <ul>
 *   <li>partition 0 holds vertices {@code 0, 1, 2}, hubs of {@link #HUB_DEGREE} = 2^30 in-neighbors
 *       each, so vertex 2's row starts at edge position 2^31 and partition 1 starts at edge 3 *
 *       2^30. A hub row is a hole (neighbor 0) except at its first and last position, which hold
 *       {@link #hubMarker}.
 *   <li>partition 1 holds every other vertex {@code v}, with one in-neighbor, {@link
 *       #neighborOf}{@code (v)}, at global position {@code 3 * 2^30 + v - 3}.
 *   <li>feature row {@code v} ({@link #DIM} floats) holds {@link #feature}{@code (v, c)} for {@code
 *       v} in {@link #WRITTEN_ROWS}, and zeros otherwise.
 * </ul>
 */
final class SparseLargeStore {
  static final int VERTICES = 270_000;
  static final int HUBS = 3;
  static final int DIM = 4096;
  static final long HUB_DEGREE = 1L << 30;
  static final long HUB_EDGES = HUBS * HUB_DEGREE;
  static final long EDGES = HUB_EDGES + VERTICES - HUBS;

  /**
   * The feature rows that hold values. In partition 1's feature file (local row {@code v - 3}), row
   * 131,074 straddles byte 2^31 (a mapping chunk boundary), 131,075 starts right after it, 262,147
   * starts past 2^32, and the last row ends the file.
   */
  static final int[] WRITTEN_ROWS = {2, 3, 131_074, 131_075, 262_146, 262_147, VERTICES - 1};

  private SparseLargeStore() {}

  static int neighborOf(int v) {
    return (int) ((7L * v + 1) % VERTICES);
  }

  static int hubMarker(int hub, boolean last) {
    return 1000 + 2 * hub + (last ? 1 : 0);
  }

  static float feature(int v, int c) {
    return (float) (v % 1000) + c / 8192f;
  }

  static StoreManifest write(Path store) {
    OutputCommit.Run run = StoreOutput.COMMIT.begin(store);
    try {
      Path dir = run.dir();
      int[] first = {0, HUBS};
      int[] count = {HUBS, VERTICES - HUBS};
      long[] edges = {HUB_EDGES, VERTICES - HUBS};
      StoreManifest m = new StoreManifest();
      for (int p = 0; p < 2; p++) {
        writeCsr(dir.resolve(StoreLayout.csrFile(p)), p, first[p], count[p], edges[p]);
        writeFeatures(dir.resolve(StoreLayout.featuresFile(p)), first[p], count[p]);
        try (NodesFileWriter nodes =
            new NodesFileWriter(dir.resolve(StoreLayout.nodesFile(p)), p, first[p], count[p])) {
          for (int v = first[p]; v < first[p] + count[p]; v++) {
            nodes.write(v % 5, StoreLayout.SPLIT_TRAIN);
          }
          nodes.finish();
        }
        m.partitionTable.add(new StoreManifest.Partition(p, first[p], count[p], edges[p]));
      }
      m.vertices = VERTICES;
      m.edges = EDGES;
      m.partitions = 2;
      m.featureDim = DIM;
      m.classes = 5;
      m.idType = "long";
      m.splitCounts.put("train", (long) VERTICES);
      m.inputFingerprint = "sparse-large-store";
      m.files = StoreOutput.files(dir);
      StoreOutput.COMMIT.publish(run, m, true);
      return m;
    } catch (IOException e) {
      StoreOutput.COMMIT.abort(run);
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      StoreOutput.COMMIT.abort(run);
      throw e;
    }
  }

  /** Row pointer of local row {@code r} of partition {@code p}. */
  private static long indptr(int p, long r) {
    return p == 0 ? r * HUB_DEGREE : r;
  }

  private static void writeCsr(Path file, int p, int first, int count, long edges)
      throws IOException {
    Files.createDirectories(file.getParent());
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(
          ByteBuffer.wrap(
              StoreHeader.create(StoreLayout.CSR_MAGIC)
                  .putInt(CsrFileWriter.PARTITION, p)
                  .putLong(CsrFileWriter.FIRST_VERTEX, first)
                  .putLong(CsrFileWriter.NUM_VERTICES, count)
                  .putLong(CsrFileWriter.NUM_EDGES, edges)
                  .toBytes()),
          0);
      ByteBuffer ptr = le(8 * (count + 1));
      for (int r = 0; r <= count; r++) {
        ptr.putLong(indptr(p, r));
      }
      ch.write(ptr.flip(), StoreLayout.HEADER_BYTES);
      long indices = CsrFileWriter.indicesOffset(count);
      if (p == 0) {
        for (int hub = 0; hub < HUBS; hub++) {
          putInt(ch, indices + 4 * (hub * HUB_DEGREE), hubMarker(hub, false));
          putInt(ch, indices + 4 * ((hub + 1) * HUB_DEGREE - 1), hubMarker(hub, true));
        }
      } else {
        ByteBuffer rows = le(4 * count);
        for (int v = first; v < first + count; v++) {
          rows.putInt(neighborOf(v));
        }
        ch.write(rows.flip(), indices);
      }
      if (ch.size() != CsrFileWriter.fileLength(count, edges)) {
        throw new IllegalStateException(file + ": sparse csr file has length " + ch.size());
      }
    }
  }

  private static void writeFeatures(Path file, int first, int count) throws IOException {
    Files.createDirectories(file.getParent());
    try (FileChannel ch =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      ch.write(
          ByteBuffer.wrap(
              StoreHeader.create(StoreLayout.FEATURES_MAGIC)
                  .putInt(FeatureFileWriter.ENCODING, StoreLayout.ENCODING_F32)
                  .putLong(FeatureFileWriter.FIRST_VERTEX, first)
                  .putLong(FeatureFileWriter.NUM_VERTICES, count)
                  .putInt(FeatureFileWriter.DIM, DIM)
                  .putInt(FeatureFileWriter.ROW_BYTES, 4 * DIM)
                  .toBytes()),
          0);
      long length = FeatureFileWriter.fileLength(count, 4 * DIM);
      ByteBuffer row = le(4 * DIM);
      for (int v : WRITTEN_ROWS) {
        if (v < first || v >= first + count) {
          continue;
        }
        row.clear();
        for (int c = 0; c < DIM; c++) {
          row.putFloat(feature(v, c));
        }
        ch.write(row.flip(), StoreLayout.HEADER_BYTES + 4L * DIM * (v - first));
      }
      if (ch.size() != length) { // each partition's last row is one of WRITTEN_ROWS
        throw new IllegalStateException(file + ": sparse feature file has length " + ch.size());
      }
    }
  }

  private static void putInt(FileChannel ch, long pos, int value) throws IOException {
    ch.write(le(4).putInt(value).flip(), pos);
  }

  private static ByteBuffer le(int bytes) {
    return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }
}
