package io.fanout.prepare;

import io.fanout.store.FeatureFileWriter;
import io.fanout.store.InvalidInputException;
import io.fanout.store.NodesFileWriter;
import io.fanout.store.StoreLayout;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * Writes the {@code nodes/} and {@code features/} part files of the store partitions a task holds
 * and emits their id-map rows {@code (dense_id, id)}.
 *
 * <p>Input rows are {@code (_part, _id, _label, _split[, _feat])}, sorted by {@code _id} (a single
 * sort key keeps Spark's prefix sort effective); the dense id of a row is {@code
 * first_vertex[_part]} plus its rank in its partition. A task normally holds one partition; if it
 * holds several, their rows interleave and each keeps its own open files. Equal ids are adjacent
 * after the sort, so a repeated id is found by comparing neighbors and fails the task.
 */
final class VertexPartTask implements MapPartitionsFunction<Row, Row> {
  private static final long serialVersionUID = 1L;

  private final String staging;
  private final long[] firsts;
  private final long[] counts;
  private final int dim;
  private final String source;
  private final String idColumn;

  VertexPartTask(
      String staging, long[] firsts, long[] counts, int dim, String source, String idColumn) {
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
    }

    void finish() {
      Path root = Paths.get(staging);
      nodes.finish();
      PartFiles.commit(nodesAttempt, root.resolve(StoreLayout.nodesFile(index)));
      if (feats != null) {
        feats.finish();
        PartFiles.commit(featsAttempt, root.resolve(StoreLayout.featuresFile(index)));
      }
    }
  }

  @Override
  public Iterator<Row> call(Iterator<Row> input) {
    return new Iterator<>() {
      private final Map<Integer, Part> parts = new HashMap<>();
      private Part last;
      private Object prevId;
      private boolean finished;
      private final float[] row = new float[Math.max(dim, 1)];

      @Override
      public boolean hasNext() {
        if (input.hasNext()) {
          return true;
        }
        if (!finished) {
          finished = true;
          for (Part p : parts.values()) {
            p.finish();
          }
        }
        return false;
      }

      @Override
      public Row next() {
        if (!input.hasNext()) {
          throw new NoSuchElementException();
        }
        Row r = input.next();
        int p = r.getInt(0);
        Part part = last != null && last.index == p ? last : parts.computeIfAbsent(p, Part::new);
        last = part;
        Object id = r.get(1);
        if (id.equals(prevId)) {
          throw new InvalidInputException(
              source
                  + ": column '"
                  + idColumn
                  + "': duplicate vertex id "
                  + id
                  + " (appears at least twice); expected unique vertex ids");
        }
        prevId = id;
        part.nodes.write(r.getInt(2), r.getByte(3));
        if (part.feats != null) {
          scala.collection.Seq<Object> values = r.getSeq(4);
          for (int j = 0; j < dim; j++) {
            row[j] = (Float) values.apply(j);
          }
          part.feats.writeRow(row, 0);
        }
        long dense = firsts[p] + part.rank;
        part.rank++;
        return RowFactory.create((int) dense, id);
      }
    };
  }
}
