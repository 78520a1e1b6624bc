package io.fanout.graph;

import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;

/**
 * The val or test edges of a link-prediction store ({@code prepare --edge-split}) in dense ids: its
 * positive pairs (label 1) and its fixed negative pairs (label 0), in file order.
 */
public final class HeldOutEdges {
  public final int[] src;
  public final int[] dst;
  public final byte[] label;

  HeldOutEdges(int[] src, int[] dst, byte[] label) {
    this.src = src;
    this.dst = dst;
    this.label = label;
  }

  /** Held-out pairs given in memory (arrays of one length, used as they are). */
  public static HeldOutEdges of(int[] src, int[] dst, byte[] label) {
    if (src.length != dst.length || src.length != label.length) {
      throw new IllegalArgumentException("held-out arrays of different lengths");
    }
    return new HeldOutEdges(src, dst, label);
  }

  public int size() {
    return src.length;
  }

  /** Pairs with label 1. */
  public int positives() {
    int n = 0;
    for (byte b : label) {
      n += b;
    }
    return n;
  }

  /**
   * Reads split {@code split} ({@code val} or {@code test}) of {@code store}.
   *
   * @throws InvalidInputException when the store has no edge split
   */
  public static HeldOutEdges read(GraphStore store, String split) {
    requireEdgeSplit(store.root(), store.manifest(), "the held-out edges");
    return read(store.dataRoot().resolve(StoreLayout.edgeSplitFile(split)));
  }

  /**
   * Reads split {@code split} of the link relation of typed store {@code store} ({@code prepare
   * --link-relation}): type-local ids, sources of the relation's source type and destinations of
   * its destination type.
   *
   * @throws InvalidInputException when the store has no edge split
   */
  public static HeldOutEdges read(TypedGraphStore store, String split) {
    requireEdgeSplit(store.root(), store.manifest(), "the held-out edges");
    String relation = store.manifest().edgeSplit.relation;
    return read(store.dataRoot().resolve(StoreLayout.relationEdgeSplitFile(relation, split)));
  }

  /** Reads one held-out edge list file ({@link StoreLayout#edgeSplitFile}'s layout). */
  static HeldOutEdges read(Path file) {
    int n = 0;
    int[] src = new int[1024];
    int[] dst = new int[1024];
    byte[] label = new byte[1024];
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      MessageType schema = r.getFooter().getFileMetaData().getSchema();
      MessageColumnIO io = new ColumnIOFactory().getColumnIO(schema);
      PageReadStore pages;
      while ((pages = r.readNextRowGroup()) != null) {
        RecordReader<Group> rr = io.getRecordReader(pages, new GroupRecordConverter(schema));
        for (long i = 0; i < pages.getRowCount(); i++) {
          Group g = rr.read();
          if (n == src.length) {
            src = java.util.Arrays.copyOf(src, 2 * n);
            dst = java.util.Arrays.copyOf(dst, 2 * n);
            label = java.util.Arrays.copyOf(label, 2 * n);
          }
          src[n] = g.getInteger("src_dense", 0);
          dst[n] = g.getInteger("dst_dense", 0);
          label[n] = (byte) g.getInteger("label", 0);
          n++;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    return new HeldOutEdges(
        java.util.Arrays.copyOf(src, n),
        java.util.Arrays.copyOf(dst, n),
        java.util.Arrays.copyOf(label, n));
  }

  /**
   * Fails with one line when {@code manifest} has no edge split; {@code what} names what needed it.
   */
  public static void requireEdgeSplit(Path store, StoreManifest manifest, String what) {
    if (manifest.edgeSplit == null) {
      throw new InvalidInputException(
          store
              + ": the store has no edge split, needed for "
              + what
              + (manifest.typed()
                  ? "; rerun prepare with --task link --link-relation NAME"
                  : "; rerun prepare with --task link (or --edge-split TRAIN,VAL,TEST)"));
    }
  }
}
