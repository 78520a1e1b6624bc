package io.fanout.graph;

import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;

/**
 * The val or test edges of a link-prediction store ({@code prepare --edge-split}) in dense ids: its
 * positive pairs (label 1) and its fixed negative pairs (label 0), in file order.
 */
public final class HeldOutEdges {
  static final String SRC_DENSE = "src_dense";
  static final String DST_DENSE = "dst_dense";
  static final String LABEL = "label";

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

  /**
   * How many pairs split {@code split} ({@code val} or {@code test}) of {@code store} holds and how
   * many are positives, without reading the pairs: see {@link #count(Path, StoreManifest.EdgeSplit,
   * String)}.
   *
   * @throws InvalidInputException when the store has no edge split
   */
  public static HeldOutCount count(GraphStore store, String split) {
    requireEdgeSplit(store.root(), store.manifest(), "the held-out edges");
    return count(
        store.dataRoot().resolve(StoreLayout.edgeSplitFile(split)),
        store.manifest().edgeSplit,
        split);
  }

  /**
   * As {@link #count(GraphStore, String)}, for the link relation of typed store {@code store}.
   *
   * @throws InvalidInputException when the store has no edge split
   */
  public static HeldOutCount count(TypedGraphStore store, String split) {
    requireEdgeSplit(store.root(), store.manifest(), "the held-out edges");
    StoreManifest.EdgeSplit e = store.manifest().edgeSplit;
    return count(
        store.dataRoot().resolve(StoreLayout.relationEdgeSplitFile(e.relation, split)), e, split);
  }

  /**
   * The counts of held-out edge list {@code file}, split {@code split} of manifest entry {@code e}:
   * the pairs are the file's rows, from its footer; the positives are the entry's {@code
   * <split>_pairs} when its {@code <split>_pairs} and {@code <split>_negatives} add up to those
   * rows, else (a manifest without them) the rows of label 1, read from the label column alone.
   * Memory does not grow with the file.
   */
  static HeldOutCount count(Path file, StoreManifest.EdgeSplit e, String split) {
    boolean val = split.equals(StoreLayout.HELD_OUT_SPLITS.get(0));
    if (!val && !split.equals(StoreLayout.HELD_OUT_SPLITS.get(1))) {
      throw new IllegalArgumentException("held-out split '" + split + "'; expected val or test");
    }
    long positives = val ? e.valPairs : e.testPairs;
    long negatives = val ? e.valNegatives : e.testNegatives;
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      long rows = r.getRecordCount();
      if (positives >= 0 && negatives >= 0 && positives + negatives == rows) {
        return new HeldOutCount(rows, positives);
      }
    } catch (IOException ex) {
      throw new UncheckedIOException("cannot read " + file, ex);
    }
    return count(file);
  }

  /**
   * The counts of held-out edge list {@code file} from the file alone: its rows from the footer,
   * its positives by streaming the {@code label} column (no other column is read).
   */
  static HeldOutCount count(Path file) {
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      MessageType wanted = projection(file, r, LABEL);
      ColumnDescriptor labels = wanted.getColumns().get(0);
      String createdBy = r.getFooter().getFileMetaData().getCreatedBy();
      long rows = 0;
      long positives = 0;
      PageReadStore pages;
      while ((pages = r.readNextRowGroup()) != null) {
        ColumnReader c = columns(pages, wanted, createdBy).getColumnReader(labels);
        long n = pages.getRowCount();
        for (long i = 0; i < n; i++) {
          positives += next(c, file, LABEL, rows + i) == 1 ? 1 : 0;
        }
        rows += n;
      }
      return new HeldOutCount(rows, positives);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /**
   * Reads one held-out edge list file ({@link StoreLayout#edgeSplitFile}'s layout): columns {@code
   * src_dense}, {@code dst_dense} and {@code label} only, into arrays sized by the footer.
   */
  static HeldOutEdges read(Path file) {
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      long total = r.getRecordCount();
      if (total > Integer.MAX_VALUE - 8) {
        throw new InvalidInputException(
            file + ": " + total + " held-out pairs; expected fewer than 2^31");
      }
      MessageType wanted = projection(file, r, SRC_DENSE, DST_DENSE, LABEL);
      List<ColumnDescriptor> cols = wanted.getColumns();
      String createdBy = r.getFooter().getFileMetaData().getCreatedBy();
      int[] src = new int[(int) total];
      int[] dst = new int[(int) total];
      byte[] label = new byte[(int) total];
      int at = 0;
      PageReadStore pages;
      while ((pages = r.readNextRowGroup()) != null) {
        long n = pages.getRowCount();
        if (n > total - at) {
          throw new InvalidInputException(
              file + ": its row groups hold more rows than its footer's " + total);
        }
        ColumnReadStoreImpl store = columns(pages, wanted, createdBy);
        ColumnReader s = store.getColumnReader(cols.get(0));
        ColumnReader d = store.getColumnReader(cols.get(1));
        ColumnReader l = store.getColumnReader(cols.get(2));
        for (int i = at; i < at + n; i++) {
          src[i] = next(s, file, SRC_DENSE, i);
          dst[i] = next(d, file, DST_DENSE, i);
          label[i] = (byte) next(l, file, LABEL, i);
        }
        at += (int) n;
      }
      if (at != total) {
        throw new InvalidInputException(
            file + ": its row groups hold " + at + " rows, its footer " + total);
      }
      return new HeldOutEdges(src, dst, label);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /**
   * The schema of {@code columns} of {@code r}'s file, each checked to be an int32 column, and set
   * as the only columns {@code r} reads.
   */
  private static MessageType projection(Path file, ParquetFileReader r, String... columns) {
    MessageType schema = r.getFooter().getFileMetaData().getSchema();
    List<Type> fields = new ArrayList<>();
    for (String c : columns) {
      if (!schema.containsField(c)
          || !schema.getType(c).isPrimitive()
          || schema.getType(c).asPrimitiveType().getPrimitiveTypeName()
              != PrimitiveType.PrimitiveTypeName.INT32) {
        throw new InvalidInputException(
            file + ": expected an int32 column '" + c + "' (a held-out edge list)");
      }
      fields.add(schema.getType(c));
    }
    MessageType wanted = new MessageType(schema.getName(), fields);
    r.setRequestedSchema(wanted);
    return wanted;
  }

  private static ColumnReadStoreImpl columns(
      PageReadStore pages, MessageType schema, String createdBy) {
    return new ColumnReadStoreImpl(
        pages, new GroupRecordConverter(schema).getRootConverter(), schema, createdBy);
  }

  /** The value of {@code c} at row {@code row}, which must not be null; moves {@code c} on. */
  private static int next(ColumnReader c, Path file, String column, long row) {
    if (c.getCurrentDefinitionLevel() < c.getDescriptor().getMaxDefinitionLevel()) {
      throw new InvalidInputException(
          file + ": column '" + column + "' is null at row " + row + "; expected an int32");
    }
    int v = c.getInteger();
    c.consume();
    return v;
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
