import io.fanout.graph.FeatureRowOrder;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedSchema;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.shard.TypedShardSet;
import io.fanout.store.StoreLayout;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Set;

/**
 * For each typed store given (the same graph, other feature layouts) and each type with feature
 * rows: over epoch 0 of the shards, the rows a batch reads (its input nodes of the type), the
 * distinct 4 KiB pages of the type's feature files they lie in (summed over batches: the page reads
 * of an epoch without a cache across batches), the runs of consecutive pages (the reads if
 * adjacent pages were merged into one read), and the distinct pages of the whole epoch. Pages are
 * those of the file offsets the store's own row order gives (TypedGraphStore.featureRowOrder).
 *
 * <p>java -cp CLASSPATH PagesTouched.java SHARDS STORE...
 */
public class PagesTouched {
  static final int PAGE = 4096;

  public static void main(String[] a) {
    TypedShardSet shards = TypedShardSet.open(Path.of(a[0]));
    for (int s = 1; s < a.length; s++) {
      try (TypedGraphStore g = TypedGraphStore.open(Path.of(a[s]), false)) {
        report(a[s], g, shards);
      }
    }
  }

  static void report(String name, TypedGraphStore g, TypedShardSet shards) {
    TypedSchema schema = g.schema();
    int types = schema.numTypes();
    long[] rows = new long[types];
    long[] pageReads = new long[types];
    long[] runs = new long[types];
    @SuppressWarnings("unchecked")
    Set<Long>[] epochPages = new Set[types];
    for (int t = 0; t < types; t++) {
      epochPages[t] = new HashSet<>();
    }
    int batches = 0;
    for (Iterator<TypedMiniBatch> it = shards.batches(0, false); it.hasNext(); ) {
      TypedMiniBatch b = it.next();
      batches++;
      for (int t = 0; t < types; t++) {
        if (!schema.type(t).hasFeatures()) {
          continue;
        }
        int[] ids = b.nodes(t);
        int rowBytes = g.featureParams(t).rowBytes();
        long[] starts = g.partitionStarts(t);
        FeatureRowOrder order = g.featureRowOrder(t);
        long[] keys = new long[ids.length * 2];
        int k = 0;
        for (int id : ids) {
          int pos = order.position(id);
          int p = Arrays.binarySearch(starts, pos);
          p = p >= 0 ? p : -p - 2;
          while (p + 1 < starts.length - 1 && starts[p + 1] <= pos) {
            p++;
          }
          long off = StoreLayout.HEADER_BYTES + (pos - starts[p]) * (long) rowBytes;
          for (long page = off / PAGE; page <= (off + rowBytes - 1) / PAGE; page++) {
            if (k == keys.length) {
              keys = Arrays.copyOf(keys, 2 * k);
            }
            keys[k++] = ((long) p << 40) | page;
          }
        }
        long[] sorted = Arrays.copyOf(keys, k);
        Arrays.sort(sorted);
        long prev = Long.MIN_VALUE;
        for (long key : sorted) {
          if (key == prev) {
            continue;
          }
          pageReads[t]++;
          if (key != prev + 1) {
            runs[t]++;
          }
          epochPages[t].add(key);
          prev = key;
        }
        rows[t] += ids.length;
      }
    }
    System.out.println("store " + name + " (" + batches + " batches)");
    for (int t = 0; t < types; t++) {
      if (!schema.type(t).hasFeatures()) {
        continue;
      }
      long filePages = 0;
      long[] starts = g.partitionStarts(t);
      int rowBytes = g.featureParams(t).rowBytes();
      for (int p = 0; p + 1 < starts.length; p++) {
        filePages += (StoreLayout.HEADER_BYTES + (starts[p + 1] - starts[p]) * rowBytes + PAGE - 1) / PAGE;
      }
      FeatureRowOrder order = g.featureRowOrder(t);
      System.out.printf(
          "  type %-8s layout %-11s rows_read %d page_reads %d rows_per_page_read %.2f"
              + " runs %d epoch_distinct_pages %d of %d%n",
          schema.type(t).name(),
          order.isIdentity() ? "identity" : g.manifest().types.get(t).featureLayout,
          rows[t],
          pageReads[t],
          (double) rows[t] / Math.max(1, pageReads[t]),
          runs[t],
          epochPages[t].size(),
          filePages);
    }
  }
}
