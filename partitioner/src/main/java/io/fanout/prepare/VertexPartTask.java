package io.fanout.prepare;

import io.fanout.store.FeatureFileWriter;
import io.fanout.store.InvalidInputException;
import io.fanout.store.NodesFileWriter;
import io.fanout.store.StoreLayout;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;

/**
 * Writes the {@code nodes/} and {@code features/} part files of the store partitions a task holds
 * and emits their id-map rows {@code (dense_id, id)}.
 *
 * <p>Input rows are {@code (_part, _id, _label, _split[, _feat])}, sorted by {@code (_part, _id)};
 * the dense id of a row is {@code first_vertex[_part]} plus its rank in the partition. Adjacent
 * equal ids are duplicates and fail the task.
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

  @Override
  public Iterator<Row> call(Iterator<Row> input) {
    return new Iterator<>() {
      private int part = -1;
      private long rank;
      private Object prevId;
      private NodesFileWriter nodes;
      private FeatureFileWriter feats;
      private Path nodesAttempt;
      private Path featsAttempt;
      private final float[] row = new float[Math.max(dim, 1)];

      @Override
      public boolean hasNext() {
        if (input.hasNext()) {
          return true;
        }
        finishPart();
        return false;
      }

      @Override
      public Row next() {
        if (!input.hasNext()) {
          throw new NoSuchElementException();
        }
        Row r = input.next();
        int p = r.getInt(0);
        if (p != part) {
          finishPart();
          startPart(p);
        }
        Object id = r.get(1);
        if (rank > 0 && id.equals(prevId)) {
          throw new InvalidInputException(
              source
                  + ": column '"
                  + idColumn
                  + "': duplicate vertex id "
                  + id
                  + " (appears at least twice); expected unique vertex ids");
        }
        prevId = id;
        nodes.write(r.getInt(2), r.getByte(3));
        if (feats != null) {
          scala.collection.Seq<Object> values = r.getSeq(4);
          for (int j = 0; j < dim; j++) {
            row[j] = (Float) values.apply(j);
          }
          feats.writeRow(row, 0);
        }
        long dense = firsts[p] + rank;
        rank++;
        return RowFactory.create((int) dense, id);
      }

      private void startPart(int p) {
        part = p;
        rank = 0;
        Path root = Paths.get(staging);
        Path nodesFile = root.resolve(StoreLayout.nodesFile(p));
        nodesAttempt = PartFiles.attemptFile(nodesFile);
        nodes = new NodesFileWriter(nodesAttempt, p, firsts[p], counts[p]);
        if (dim > 0) {
          featsAttempt = PartFiles.attemptFile(root.resolve(StoreLayout.featuresFile(p)));
          feats =
              new FeatureFileWriter(
                  featsAttempt, firsts[p], counts[p], dim, StoreLayout.ENCODING_F32);
        }
      }

      private void finishPart() {
        if (nodes == null) {
          return;
        }
        Path root = Paths.get(staging);
        nodes.finish();
        PartFiles.commit(nodesAttempt, root.resolve(StoreLayout.nodesFile(part)));
        if (feats != null) {
          feats.finish();
          PartFiles.commit(featsAttempt, root.resolve(StoreLayout.featuresFile(part)));
        }
        nodes = null;
        feats = null;
      }
    };
  }
}
