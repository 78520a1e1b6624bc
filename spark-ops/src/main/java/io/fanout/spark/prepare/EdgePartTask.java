package io.fanout.spark.prepare;

import io.fanout.store.CsrFileWriter;
import io.fanout.store.EdgeKeySort;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.WeightFileWriter;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Writes the {@code csr/} (and, weighted, {@code weights/}) part files of the store partitions a
 * task holds, and returns one small metadata row per partition: {@code (part, edges, deg_min,
 * deg_max, dangling, sample)}.
 *
 * <p>Input rows are {@code (_part, _dd << 32 | _sd, _orig[, _weight])} ({@code _weight} only for
 * weighted stores): edge {@code _sd -> _dd} in dense ids, i.e. in-neighbor {@code _sd} of row
 * {@code _dd}. Either Spark sorted them by {@code (_part, _dd, _sd[, _weight])}, or ({@code
 * sortInTask}, unweighted stores only) they come in shuffle order and the task counting-sorts the
 * keys it holds ({@link EdgeKeySort}); both write the same bytes. Rows with {@code _part = -1} are
 * dangling edges (an endpoint is not a vertex; {@code _orig} shows it): they are counted, not
 * written. With {@code dedupe}, repeated neighbors of a row (adjacent after the sort) are written
 * once, weighing the sum of their weights (summed in double in ascending weight order, so the
 * result does not depend on the shuffle).
 *
 * <p>With an {@link EndpointLookup} ({@code --id-lookup task}), the input is instead the {@link
 * EdgeBlocks} of {@link EdgeRouter} ({@link #onBlocks()}): edges {@code src -> dst} in original
 * ids, routed to the partition of {@code dst}, a block's flag marking the reverse twins of
 * undirected input edges. The task finds both dense ids itself; an edge with an endpoint that is
 * not a vertex is dangling (counted once, for its forward row), and with {@code dropSelfLoops} an
 * edge {@code v -> v} is dropped. The keys then go through the counting sort as above, so the files
 * are those of the joined input.
 *
 * <p>It reads Spark's internal rows (the plan's {@code toRdd}), so no value is boxed and no object
 * is allocated per edge.
 */
final class EdgePartTask implements FlatMapFunction<Iterator<InternalRow>, Row> {
  private static final long serialVersionUID = 1L;

  static final StructType OUTPUT =
      new StructType()
          .add("part", DataTypes.IntegerType)
          .add("edges", DataTypes.LongType)
          .add("deg_min", DataTypes.LongType)
          .add("deg_max", DataTypes.LongType)
          .add("dangling", DataTypes.LongType)
          .add("sample", DataTypes.StringType);

  private final String staging;
  private final long[] firsts;
  private final long[] counts;
  private final boolean dedupe;

  /** The weight column's name in the input, for errors; null when the store is unweighted. */
  private final String weightColumn;

  /** Input rows come unsorted: the task sorts each partition's keys itself. */
  private final boolean sortInTask;

  /** Heap bytes the task sort may hold; 0 = max heap / (2 x cores) of the executor. */
  private final long sortBudgetBytes;

  /** Finds dense ids of original-id input rows; null when the rows carry dense keys. */
  private final EndpointLookup lookup;

  /** Finds the sources' dense ids: {@link #lookup} unless they are of another vertex type. */
  private final EndpointLookup sourceLookup;

  private final boolean dropSelfLoops;

  /**
   * @param weightColumn the input's weight column, for errors; null when the store is unweighted
   * @param sortInTask input rows come unsorted: the task sorts each partition's keys itself
   * @param sortBudgetBytes heap bytes the task sort may hold; 0 = max heap / (2 x cores)
   * @param lookup finds the dense ids of the edges of {@link EdgeBlocks} (unweighted, {@code
   *     sortInTask} only; the input of {@link #onBlocks()}); null when the rows carry dense keys
   * @param dropSelfLoops with {@code lookup}, drop edges {@code v -> v}
   */
  EdgePartTask(
      String staging,
      long[] firsts,
      long[] counts,
      boolean dedupe,
      String weightColumn,
      boolean sortInTask,
      long sortBudgetBytes,
      EndpointLookup lookup,
      boolean dropSelfLoops) {
    this(
        staging,
        firsts,
        counts,
        dedupe,
        weightColumn,
        sortInTask,
        sortBudgetBytes,
        lookup,
        lookup,
        dropSelfLoops);
  }

  /**
   * A task of {@code --id-lookup task} for a relation of a typed store: {@code lookup} finds the
   * destinations' dense ids (the relation's destination type, whose partitions the task writes),
   * {@code sourceLookup} the sources' (its source type).
   */
  EdgePartTask(
      String staging,
      long[] firsts,
      long[] counts,
      boolean dedupe,
      String weightColumn,
      boolean sortInTask,
      long sortBudgetBytes,
      EndpointLookup lookup,
      EndpointLookup sourceLookup,
      boolean dropSelfLoops) {
    if ((lookup == null) != (sourceLookup == null)) {
      throw new IllegalArgumentException("both endpoints are looked up, or neither");
    }
    this.lookup = lookup;
    this.sourceLookup = sourceLookup;
    this.dropSelfLoops = dropSelfLoops;
    if (lookup != null && !sortInTask) {
      throw new IllegalArgumentException("looked-up rows are sorted by the task");
    }
    if (sortInTask && weightColumn != null) {
      throw new IllegalArgumentException("weighted edges are sorted by Spark, with their weights");
    }
    this.sortInTask = sortInTask;
    this.sortBudgetBytes = sortBudgetBytes;
    this.staging = staging;
    this.firsts = firsts;
    this.counts = counts;
    this.dedupe = dedupe;
    this.weightColumn = weightColumn;
  }

  @Override
  public Iterator<Row> call(Iterator<InternalRow> input) {
    if (lookup != null) {
      throw new IllegalStateException("edges in original ids come in blocks: see onBlocks()");
    }
    Parts parts = new Parts(Paths.get(staging));
    if (sortInTask) {
      boolean[] present = new boolean[firsts.length - 1];
      EdgeKeySort keys = newSort();
      while (input.hasNext()) {
        InternalRow r = input.next();
        int p = r.getInt(0);
        if (p < 0) {
          parts.dangling(r);
          continue;
        }
        present[p] = true;
        add(keys, r.getLong(1), p);
      }
      writeSorted(keys, present, parts);
    } else {
      while (input.hasNext()) {
        InternalRow r = input.next();
        int p = r.getInt(0);
        if (p < 0) {
          parts.dangling(r);
        } else {
          parts.edge(p, r.getLong(1), weightColumn != null ? r.getFloat(3) : 0f);
        }
      }
    }
    return parts.close().iterator();
  }

  /** This task over the {@link EdgeBlocks} of {@link EdgeRouter} ({@code --id-lookup task}). */
  FlatMapFunction<Iterator<byte[]>, Row> onBlocks() {
    if (lookup == null) {
      throw new IllegalStateException("blocks hold original ids: the task needs a lookup");
    }
    return new OnBlocks();
  }

  private final class OnBlocks implements FlatMapFunction<Iterator<byte[]>, Row> {
    private static final long serialVersionUID = 1L;

    @Override
    public Iterator<Row> call(Iterator<byte[]> blocks) {
      Parts parts = new Parts(Paths.get(staging));
      boolean[] present = new boolean[firsts.length - 1];
      EdgeKeySort keys = newSort();
      addLookingUp(blocks, parts, keys, present);
      writeSorted(keys, present, parts);
      return parts.close().iterator();
    }
  }

  /** The task's sort, holding at most the sort budget. */
  private EdgeKeySort newSort() {
    long budget =
        sortBudgetBytes > 0
            ? sortBudgetBytes
            : Runtime.getRuntime().maxMemory()
                / (2L * Math.max(1, Runtime.getRuntime().availableProcessors()));
    return new EdgeKeySort(budget);
  }

  /**
   * Counting-sorts the keys by destination ({@link EdgeKeySort}) and writes the partitions the task
   * holds in ascending order, as the sorted path would.
   */
  private void writeSorted(EdgeKeySort keys, boolean[] present, Parts parts) {
    keys.sort();
    for (int p = 0; p < present.length; p++) {
      if (!present[p]) {
        continue;
      }
      long from = Math.max(firsts[p], keys.minDestination());
      long to = Math.min(firsts[p] + counts[p] - 1, keys.maxDestination());
      parts.open(p);
      for (long dst = from; dst <= to; dst++) {
        int end = keys.rowEnd(dst);
        for (int i = keys.rowStart(dst); i < end; i++) {
          parts.edge(p, dst << 32 | keys.source(i), 0f);
        }
      }
    }
  }

  /**
   * Reads the edge blocks, finds the dense ids of each block's sources ({@link
   * EndpointLookup#dense}, in the source type's tables) and of its destinations (all in the block's
   * partition), and adds the keys of the edges that stay: not dangling, not a dropped self-loop.
   */
  private void addLookingUp(
      Iterator<byte[]> blocks, Parts parts, EdgeKeySort keys, boolean[] present) {
    long[] src = new long[EdgeBlocks.MAX_ROWS];
    long[] dst = new long[EdgeBlocks.MAX_ROWS];
    long[] denseSrc = new long[EdgeBlocks.MAX_ROWS];
    long[] denseDst = new long[EdgeBlocks.MAX_ROWS];
    int[] srcPart = new int[EdgeBlocks.MAX_ROWS];
    while (blocks.hasNext()) {
      byte[] block = blocks.next();
      int n = EdgeBlocks.read(block, src, dst);
      int p = EdgeBlocks.partition(block);
      boolean reverse = EdgeBlocks.reverse(block);
      sourceLookup.dense(src, n, denseSrc, srcPart);
      lookup.denseIn(p, dst, n, denseDst);
      boolean kept = false;
      for (int i = 0; i < n; i++) {
        long ds = denseSrc[i];
        long dd = denseDst[i];
        if (ds < 0 || dd < 0) {
          if (!reverse) {
            parts.dangling(src[i], dst[i]);
          }
          continue;
        }
        if (dropSelfLoops && ds == dd) {
          continue;
        }
        kept = true;
        add(keys, dd << 32 | ds, p);
      }
      present[p] |= kept;
    }
  }

  private static void add(EdgeKeySort keys, long key, int partition) {
    try {
      keys.add(key);
    } catch (EdgeKeySort.TooLarge e) {
      throw new InvalidInputException(
          "edges: store partition "
              + partition
              + " has more edges than its csr task may sort in memory: "
              + e.getMessage()
              + " (the task's share of the heap: max heap / (2 x cores)); raise --partitions, or"
              + " use --edge-sort sql (Spark's sort, which spills)");
    }
  }

  /**
   * The part files being written, fed edges in {@code (_part, _dd, _sd[, _weight])} order: each
   * partition's rows are written as its edges arrive, and a partition is finished when the next one
   * starts (or at {@link #close()}).
   */
  private final class Parts {
    private final Path root;
    private final List<Row> out = new ArrayList<>();
    private long dangling;
    private String sample;
    private int part = -2;
    private CsrFileWriter csr;
    private Path attempt;
    private Weights weights;
    private long row;
    private long n;
    private long first;
    private long prevSrc = -1;
    private long rowStartEdges;
    private long degMin = Long.MAX_VALUE;
    private long degMax;

    Parts(Path root) {
      this.root = root;
    }

    /** Counts a dangling edge; its {@code _orig} is kept as the sample when it is the first. */
    void dangling(InternalRow r) {
      dangling++;
      if (sample == null) {
        sample = r.isNullAt(2) ? null : r.getUTF8String(2).toString();
      }
    }

    /** Counts dangling edge {@code src -> dst} (original ids), the sample when it is the first. */
    void dangling(long src, long dst) {
      dangling++;
      if (sample == null) {
        sample = src + " -> " + dst;
      }
    }

    /** Starts partition {@code p}, finishing the previous one; a no-op when it is current. */
    void open(int p) {
      if (p == part) {
        return;
      }
      finishPart();
      part = p;
      first = firsts[p];
      n = counts[p];
      attempt = PartFiles.attemptFile(root.resolve(StoreLayout.csrFile(p)));
      csr = new CsrFileWriter(attempt, p, first, n);
      if (weightColumn != null) {
        weights = new Weights(root, p, first, n);
      }
      row = 0;
      prevSrc = -1;
      rowStartEdges = 0;
      degMin = Long.MAX_VALUE;
      degMax = 0;
    }

    /**
     * Edge {@code key = dst << 32 | src} of partition {@code p}, weighing {@code w} if weighted.
     */
    void edge(int p, long key, float w) {
      open(p);
      long local = (key >>> 32) - first;
      while (row < local) {
        endRow();
      }
      int src = (int) key;
      if (dedupe && src == prevSrc) {
        if (weights != null) {
          weights.addToLast(w);
        }
        return;
      }
      csr.addNeighbor(src);
      if (weights != null) {
        weights.add(w, key);
      }
      prevSrc = src;
    }

    private void endRow() {
      long d = csr.edgesWritten() - rowStartEdges;
      degMin = Math.min(degMin, d);
      degMax = Math.max(degMax, d);
      csr.endRow();
      rowStartEdges = csr.edgesWritten();
      row++;
      prevSrc = -1;
    }

    private void finishPart() {
      if (csr == null) {
        return;
      }
      while (row < n) {
        endRow();
      }
      long edges = csr.edgesWritten();
      csr.finish();
      PartFiles.commit(attempt, root.resolve(StoreLayout.csrFile(part)));
      out.add(RowFactory.create(part, edges, n == 0 ? 0L : degMin, degMax, 0L, null));
      if (weights != null) {
        weights.finish(root, part);
      }
      csr = null;
    }

    /** Finishes the last partition; the metadata rows, plus one for the dangling edges if any. */
    List<Row> close() {
      finishPart();
      if (dangling > 0) {
        out.add(RowFactory.create(-1, 0L, 0L, 0L, dangling, sample));
      }
      return out;
    }
  }

  /**
   * The {@code weights/} file of one partition, one entry behind the CSR: the last entry's weight
   * is written when the next comes (or at the end), so that {@code --dedupe} can add to it.
   */
  private final class Weights {
    private final WeightFileWriter writer;
    private final Path attempt;
    private double pending;
    private long pendingKey;
    private boolean hasPending;

    Weights(Path root, int p, long first, long n) {
      attempt = PartFiles.attemptFile(root.resolve(StoreLayout.weightsFile(p)));
      writer = new WeightFileWriter(attempt, p, first, n);
    }

    void add(float w, long key) {
      flush();
      pending = w;
      pendingKey = key;
      hasPending = true;
    }

    void addToLast(float w) {
      pending += w;
    }

    private void flush() {
      if (!hasPending) {
        return;
      }
      float w = (float) pending;
      if (Float.isInfinite(w)) {
        throw new InvalidInputException(
            "edges: column '"
                + weightColumn
                + "': the weights of the repeated edge "
                + (int) pendingKey
                + " -> "
                + (pendingKey >>> 32)
                + " (dense ids) sum to "
                + pending
                + ", beyond float32 range; expected --dedupe sums below "
                + Float.MAX_VALUE
                + " (scale the weights down)");
      }
      writer.add(w);
      hasPending = false;
    }

    void finish(Path root, int p) {
      flush();
      writer.finish();
      PartFiles.commit(attempt, root.resolve(StoreLayout.weightsFile(p)));
    }
  }
}
