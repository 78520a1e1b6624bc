package io.fanout.train;

import io.fanout.features.RowCache;
import io.fanout.graph.FeatureTable;
import io.fanout.nn.FeatureNormKind;
import io.fanout.sample.MiniBatch;
import io.fanout.store.InvalidInputException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.function.IntPredicate;

/**
 * Reads and decodes the parts of an epoch on background threads ahead of the compute step, and
 * gathers features from the (memory-mapped) {@link FeatureTable} when the parts hold node ids only.
 *
 * <p>The readers are a {@link PartPipeline}: part {@code i} is read by thread {@code i mod
 * threads}; each thread owns a bounded queue and a pool of reusable feature buffers of {@code
 * prefetch + 1} entries, which bounds memory, and the consumer drains the parts in order, so the
 * batch order is the part order whatever the thread timing. A reader only decodes (or samples) its
 * batches in order; when the batches' rows are gathered here, a pool of {@code threads} fill
 * threads gathers, prunes and normalizes each one ({@link BatchFiller}), so the batches of the part
 * the consumer is draining are filled side by side (up to {@code prefetch + 1} at once) while the
 * other readers wait with full queues. Every batch is filled the same way whichever thread fills
 * it.
 *
 * <p>With a {@link RowCache} the cache is the only feature source: the reader threads decode the
 * batches only, and one gather thread takes them in batch order, plans a window of upcoming batches
 * ({@link RowCache#plan}; its length is {@link PlanWindow}'s), gathers the first half of it through
 * the cache into buffers of its own pool and queues them for the consumer, {@code prefetch} batches
 * ahead, then plans the next window (the rest and as many batches after it). A loader that does not
 * gather, given a cache, resolves the rows to cache slots instead ({@link RowCache#resolve}): the
 * consumer's backend reads them in place and releases each batch's slots when done.
 */
public final class PipelinedLoader implements BatchStream {
  private static final TrainBatch END = new TrainBatch(-2);

  private final int dim;
  private final FeatureNormKind norm;
  private final RowCache cache;
  private final boolean gather;
  private final BatchFiller filler;
  private final PartPipeline<DecodedBatch, TrainBatch> readers;
  private final BlockingQueue<Object> gathered;
  private final BlockingQueue<TrainBatch> gatherPool; // the gather thread's buffers, or null
  private final Thread gatherThread; // null without a cache
  private final long ticket;
  private volatile boolean closed;

  /** The number of the last batch this loader resolved to cache slots (0: none). */
  private volatile long lastSlotBatch;

  /**
   * @param table the feature source for parts without inline features (may be null if every part
   *     inlines them)
   * @param dim the feature dimension the model expects
   * @param norm row normalization: none, l1 or l2
   */
  public PipelinedLoader(
      List<BatchPart> parts,
      FeatureTable table,
      int dim,
      FeatureNormKind norm,
      int threadCount,
      int prefetch) {
    this(parts, table, dim, norm, threadCount, prefetch, null);
  }

  /**
   * A loader of only the batches whose index {@code keep} accepts (null: all); the others are
   * skipped by the parts before they are decoded or sampled, and their features never gathered.
   */
  public PipelinedLoader(
      List<BatchPart> parts,
      FeatureTable table,
      int dim,
      FeatureNormKind norm,
      int threadCount,
      int prefetch,
      IntPredicate keep) {
    this(parts, table, dim, norm, threadCount, prefetch, keep, null);
  }

  /**
   * As above; with a non-null {@code cache} the features of every batch are gathered through it
   * (and {@code table} is not used).
   */
  public PipelinedLoader(
      List<BatchPart> parts,
      FeatureTable table,
      int dim,
      FeatureNormKind norm,
      int threadCount,
      int prefetch,
      IntPredicate keep,
      RowCache cache) {
    this(parts, table, dim, norm, threadCount, prefetch, keep, cache, true);
  }

  /**
   * As above; with {@code gather} false the batches come without features ({@link
   * TrainBatch#features()} null, node ids checked against {@code table}) for a backend that reads
   * the rows itself ({@code --feature-access zero-copy}); parts that inline features are then
   * refused, and {@code cache} must be null and {@code norm} none.
   */
  public PipelinedLoader(
      List<BatchPart> parts,
      FeatureTable table,
      int dim,
      FeatureNormKind norm,
      int threadCount,
      int prefetch,
      IntPredicate keep,
      RowCache cache,
      boolean gather) {
    this(parts, table, dim, norm, threadCount, prefetch, keep, cache, gather, null);
  }

  /**
   * As above; with a non-null {@code hot} each reader thread prunes its batches for the hot set's
   * reused rows ({@link HotPruner}) before gathering their features, so the rows that only hot rows
   * reach are never read (a loader that does not gather prunes the batch alone: the trainer then
   * reads the pruned block's rows). Batches gathered through {@code cache} are not pruned here.
   */
  public PipelinedLoader(
      List<BatchPart> parts,
      FeatureTable table,
      int dim,
      FeatureNormKind norm,
      int threadCount,
      int prefetch,
      IntPredicate keep,
      RowCache cache,
      boolean gather,
      HotSet hot) {
    if (!gather && norm != FeatureNormKind.NONE) {
      throw new IllegalArgumentException("a loader that does not gather takes no feature norm");
    }
    this.gather = gather;
    this.cache = cache;
    this.ticket = cache == null ? -1 : cache.turns().take();
    this.dim = dim;
    this.norm = norm;
    this.filler =
        new BatchFiller(
            cache != null ? cache : table,
            dim,
            norm,
            cache != null,
            gather,
            cache == null ? hot : null);
    List<PartPipeline.Part<DecodedBatch>> kept = new ArrayList<>();
    for (BatchPart bp : parts) {
      kept.add(keep == null ? bp : bp.keeping(keep));
    }
    this.readers =
        new PartPipeline<>(
            kept,
            threadCount,
            prefetch,
            TrainBatch::new,
            b -> b.owner,
            filler::fill,
            cache == null && gather,
            "fanout");
    if (cache != null) {
      int n = readers.readers();
      gatherPool = new ArrayBlockingQueue<>(Math.max(1, prefetch) + 2);
      for (int i = 0; i < Math.max(1, prefetch) + 2; i++) {
        gatherPool.add(new TrainBatch(n));
      }
      gathered = new ArrayBlockingQueue<>(Math.max(1, prefetch) + 1);
      gatherThread = new Thread(this::gatherThroughCache, "fanout-feature-cache");
      gatherThread.setDaemon(true);
      gatherThread.start();
    } else {
      gatherPool = null;
      gathered = null;
      gatherThread = null;
    }
  }

  @Override
  public TrainBatch next() {
    if (cache == null) {
      return readers.next(true);
    }
    Object o = readers.take(gathered, true);
    if (o instanceof RuntimeException e) {
      throw e;
    }
    if (o instanceof Throwable e) {
      throw new IllegalStateException("gathering features failed", e);
    }
    if (o == END) {
      gathered.add(END);
      return null;
    }
    return (TrainBatch) o;
  }

  /**
   * The gather thread: batches in order from the readers, features through the cache, a window at a
   * time.
   */
  private void gatherThroughCache() {
    BlockingQueue<TrainBatch> pool = gatherPool;
    PlanWindow window = PlanWindow.of(cache);
    ArrayDeque<MiniBatch> ring = new ArrayDeque<>();
    int[][] ids = new int[PlanWindow.MIN_BATCHES][];
    int[] counts = new int[PlanWindow.MIN_BATCHES];
    long windowRows = 0;
    try {
      cache.turns().await(ticket);
      boolean more = true;
      while (!closed) {
        while (more && window.wantsMore(ring.size(), windowRows)) {
          TrainBatch h = readers.next(false);
          if (h == null) {
            more = false;
            break;
          }
          if (h.features != null) {
            throw new InvalidInputException(
                "shards with inline features cannot be read through --feature-cache; sample them"
                    + " with node ids only, or leave --feature-cache out");
          }
          ring.addLast(h.batch);
          windowRows += h.batch.nodes().length;
          recycle(h);
        }
        int size = ring.size();
        if (size == 0) {
          break;
        }
        if (ids.length < size) {
          ids = new int[Math.max(size, 2 * ids.length)][];
          counts = new int[ids.length];
        }
        int at = 0;
        for (MiniBatch b : ring) {
          ids[at] = b.nodes();
          counts[at++] = b.nodes().length;
        }
        // Gather half the window, then plan again over what is left and the batches after it,
        // so every gathered batch sees at least half a window ahead.
        int step = PlanWindow.servedPerPlan(more, size);
        cache.plan(ids, counts, size, gather ? step : 0);
        for (int i = 0; i < step; i++) {
          MiniBatch b = ring.removeFirst();
          windowRows -= counts[i];
          TrainBatch tb = pool.take();
          int rows = counts[i];
          if (gather) {
            filler.ensureFeatures(tb, rows, "batch " + b.batch());
            cache.gather(ids[i], 0, rows, tb.features, 0);
            FeatureNorm.apply(norm, tb.features, rows, dim);
          } else {
            if (tb.slots == null || tb.slots.length < rows) {
              tb.slots = new int[Math.max(rows, tb.slots == null ? 0 : 2 * tb.slots.length)];
            }
            tb.features = null;
            tb.slotCache = cache;
            tb.slotBatch = cache.resolve(ids[i], 0, rows, tb.slots);
            lastSlotBatch = tb.slotBatch;
          }
          tb.batch = b;
          tb.dim = dim;
          gathered.put(tb);
        }
      }
      cache.turns().done(ticket);
      gathered.put(END);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Throwable e) {
      PartPipeline.pass(gathered, e);
    } finally {
      cache.turns().done(ticket);
    }
  }

  @Override
  public void recycle(TrainBatch b) {
    b.releaseSlots();
    if (b.owner >= 0) {
      b.batch = null;
      b.prunedFor = null;
      if (b.owner < readers.readers()) {
        readers.recycle(b);
      } else {
        gatherPool.offer(b);
      }
    }
  }

  @Override
  public long waitNanos() {
    return readers.waitNanos();
  }

  @Override
  public void close() {
    closed = true;
    if (gatherThread != null) {
      gatherThread.interrupt();
    }
    readers.close();
    if (gatherThread != null
        && PartPipeline.join(List.of(gatherThread), System.nanoTime() + 5_000_000_000L)) {
      Thread.currentThread().interrupt();
    }
    if (lastSlotBatch > 0) {
      // this loader's batches still queued are never read: the next loader must not wait on them
      cache.fence().release(lastSlotBatch);
    }
  }
}
