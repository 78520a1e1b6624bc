package io.fanout.spark.prepare;

import io.fanout.store.FeatureFileReader;
import io.fanout.store.StoreLayout;
import java.io.Serializable;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * The f32 feature rows of a store folder by dense id, for Spark tasks: rows {@code [from, to)} are
 * read across the part files that hold them. Serializable: it carries paths and counts only.
 */
final class StoreFeatureRows implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String dataDir;
  private final long[] starts;
  private final int dim;

  /**
   * @param starts first dense id of every partition, then the vertex count
   */
  StoreFeatureRows(Path dataDir, long[] starts, int dim) {
    this.dataDir = dataDir.toAbsolutePath().toString();
    this.starts = starts.clone();
    this.dim = dim;
  }

  long numVertices() {
    return starts[starts.length - 1];
  }

  int dim() {
    return dim;
  }

  /** The f32 part file of partition {@code p}. */
  Path part(int p) {
    return Paths.get(dataDir).resolve(StoreLayout.featuresFile(p));
  }

  /** Rows {@code [from, to)} in order, each a new array. */
  Iterator<float[]> rows(long from, long to) {
    return new Iterator<>() {
      private long next = from;
      private int part = -1;
      private FeatureFileReader reader;

      @Override
      public boolean hasNext() {
        if (next >= to && reader != null) {
          reader.close();
          reader = null;
        }
        return next < to;
      }

      @Override
      public float[] next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        while (next >= starts[part + 1]) {
          if (reader != null) {
            reader.close();
          }
          part++;
          reader =
              next < starts[part + 1]
                  ? new FeatureFileReader(part(part), dim, next - starts[part])
                  : null;
        }
        float[] row = new float[dim];
        reader.next(row, 0);
        next++;
        return row;
      }
    };
  }
}
