package io.fanout.spark.prepare;

import io.fanout.store.CsrFileWriter;
import io.fanout.store.FeatureFileWriter;
import io.fanout.store.IdRankTable;
import io.fanout.store.IdRankTableWriter;
import io.fanout.store.InvalidInputException;
import io.fanout.store.NodesFileWriter;
import io.fanout.store.StoreLayout;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.util.ArrayData;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Writes the {@code nodes/}, {@code features/} and {@code idmap/} part files of the store
 * partitions a task holds, and returns one row {@code (part, vertices)} per partition written.
 *
 * <p>Input rows are {@code (_part, _id, _label, _split[, _feat][, _lset])}, sorted by {@code _id}
 * (a single sort key keeps Spark's prefix sort effective); the dense id of a row is {@code
 * first_vertex[_part]} plus its rank in its partition. A task normally holds one partition; if it
 * holds several, their rows interleave and each keeps its own open files. Equal ids are adjacent
 * after the sort, so a repeated id is found by comparing neighbors and fails the task.
 *
 * <p>It reads Spark's internal rows (the plan's {@code toRdd}): numeric ids and feature values are
 * read as primitives, never boxed.
 */
final class VertexPartTask implements FlatMapFunction<Iterator<InternalRow>, Row> {
  private static final long serialVersionUID = 1L;

  private final String staging;
  private final long[] firsts;
  private final long[] counts;
  private final int dim;
  private final String source;
  private final String idColumn;
  private final String idType;
  private final boolean partColumn;
  private final boolean rankTables;
  private final boolean labelSets;

  /** A task of a one-table store, or of a vertex type without label sets. */
  VertexPartTask(
      String staging,
      long[] firsts,
      long[] counts,
      int dim,
      String source,
      String idColumn,
      String idType,
      boolean partColumn,
      boolean rankTables) {
    this(staging, firsts, counts, dim, source, idColumn, idType, partColumn, rankTables, false);
  }

  /**
   * @param partColumn whether the id map gets a {@code part} column (graph-aware partitioners)
   * @param rankTables whether each partition also writes its {@link IdRankTable} for {@code
   *     --id-lookup task} (numeric ids only)
   * @param labelSets whether rows end with a label set ({@code array<int>}, sorted, distinct),
   *     written as each partition's {@link StoreLayout#labelSetsFile} (multi-label vertex types)
   */
  VertexPartTask(
      String staging,
      long[] firsts,
      long[] counts,
      int dim,
      String source,
      String idColumn,
      String idType,
      boolean partColumn,
      boolean rankTables,
      boolean labelSets) {
    this.labelSets = labelSets;
    if (rankTables && idType.equals("string")) {
      throw new IllegalArgumentException("id rank tables hold numeric ids");
    }
    this.rankTables = rankTables;
    this.idType = idType;
    this.partColumn = partColumn;
    this.staging = staging;
    this.firsts = firsts;
    this.counts = counts;
    this.dim = dim;
    this.source = source;
    this.idColumn = idColumn;
  }

  /** The open files of one partition. */
  private final class Part {
    final int index;
    final Path nodesAttempt;
    final NodesFileWriter nodes;
    final Path featsAttempt;
    final FeatureFileWriter feats;
    final Path idmapAttempt;
    final IdMapFileWriter idmap;
    final Path ranksAttempt;
    final IdRankTableWriter ranks;
    final Path setsAttempt;
    final CsrFileWriter sets;
    long rank;

    Part(int p) {
      index = p;
      Path root = Paths.get(staging);
      nodesAttempt = PartFiles.attemptFile(root.resolve(StoreLayout.nodesFile(p)));
      nodes = new NodesFileWriter(nodesAttempt, p, firsts[p], counts[p]);
      if (dim > 0) {
        featsAttempt = PartFiles.attemptFile(root.resolve(StoreLayout.featuresFile(p)));
        feats =
            new FeatureFileWriter(
                featsAttempt, firsts[p], counts[p], dim, StoreLayout.ENCODING_F32);
      } else {
        featsAttempt = null;
        feats = null;
      }
      idmapAttempt = PartFiles.attemptFile(root.resolve(idmapFile(p)));
      createParent(idmapAttempt);
      idmap = new IdMapFileWriter(idmapAttempt, idType, partColumn ? p : -1);
      if (rankTables) {
        ranksAttempt = PartFiles.attemptFile(root.resolve(EndpointLookup.tableFile(p)));
        createParent(ranksAttempt);
        ranks = new IdRankTableWriter(ranksAttempt, counts[p]);
      } else {
        ranksAttempt = null;
        ranks = null;
      }
      if (labelSets) {
        setsAttempt = PartFiles.attemptFile(root.resolve(StoreLayout.labelSetsFile(p)));
        createParent(setsAttempt);
        sets = new CsrFileWriter(setsAttempt, p, firsts[p], counts[p]);
      } else {
        setsAttempt = null;
        sets = null;
      }
    }

    void finish() {
      Path root = Paths.get(staging);
      nodes.finish();
      PartFiles.commit(nodesAttempt, root.resolve(StoreLayout.nodesFile(index)));
      if (feats != null) {
        feats.finish();
        PartFiles.commit(featsAttempt, root.resolve(StoreLayout.featuresFile(index)));
      }
      idmap.close();
      PartFiles.commit(idmapAttempt, root.resolve(idmapFile(index)));
      if (ranks != null) {
        ranks.finish();
        PartFiles.commit(ranksAttempt, root.resolve(EndpointLookup.tableFile(index)));
      }
      if (sets != null) {
        sets.finish();
        PartFiles.commit(setsAttempt, root.resolve(StoreLayout.labelSetsFile(index)));
      }
    }
  }

  private static void createParent(Path file) {
    try {
      java.nio.file.Files.createDirectories(file.getParent());
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("cannot create " + file.getParent(), e);
    }
  }

  private InvalidInputException duplicate(String id) {
    return new InvalidInputException(
        source
            + ": column '"
            + idColumn
            + "': duplicate vertex id "
            + id
            + " (appears at least twice); expected unique vertex ids");
  }

  static String idmapFile(int partition) {
    return StoreLayout.IDMAP_DIR
        + "/"
        + String.format(java.util.Locale.ROOT, "part-%05d.parquet", partition);
  }

  @Override
  public Iterator<Row> call(Iterator<InternalRow> input) {
    Map<Integer, Part> parts = new HashMap<>();
    Part last = null;
    boolean stringIds = idType.equals("string");
    boolean longIds = idType.equals("long");
    boolean first = true;
    long prevNumber = 0;
    UTF8String prevString = null;
    float[] row = new float[Math.max(dim, 1)];
    int setColumn = dim > 0 ? 5 : 4;
    while (input.hasNext()) {
      InternalRow r = input.next();
      int p = r.getInt(0);
      Part part = last != null && last.index == p ? last : parts.computeIfAbsent(p, Part::new);
      last = part;
      int dense = (int) (firsts[p] + part.rank);
      if (stringIds) {
        UTF8String id = r.getUTF8String(1);
        if (!first && id.equals(prevString)) {
          throw duplicate(id.toString());
        }
        prevString = id.copy(); // the row's buffer is reused for the next row
        part.idmap.write(dense, prevString.toString());
      } else {
        long id = longIds ? r.getLong(1) : r.getInt(1);
        if (!first && id == prevNumber) {
          throw duplicate(Long.toString(id));
        }
        prevNumber = id;
        if (part.ranks != null) {
          part.ranks.add(id);
        }
        if (longIds) {
          part.idmap.write(dense, id);
        } else {
          part.idmap.write(dense, (int) id);
        }
      }
      first = false;
      part.nodes.write(r.getInt(2), r.getByte(3));
      if (part.feats != null) {
        ArrayData values = r.getArray(4);
        for (int j = 0; j < dim; j++) {
          row[j] = values.getFloat(j);
        }
        part.feats.writeRow(row, 0);
      }
      if (part.sets != null) {
        ArrayData set = r.getArray(setColumn);
        for (int j = 0; j < set.numElements(); j++) {
          part.sets.addNeighbor(set.getInt(j));
        }
        part.sets.endRow();
      }
      part.rank++;
    }
    List<Row> out = new ArrayList<>();
    for (Part part : parts.values()) {
      part.finish();
      out.add(RowFactory.create(part.index, part.rank));
    }
    return out.iterator();
  }
}
