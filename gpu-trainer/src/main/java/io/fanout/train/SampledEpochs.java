package io.fanout.train;

import io.fanout.features.RowCache;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.VertexTable;
import io.fanout.nn.FeatureNormKind;
import io.fanout.sample.NeighborSampler;
import io.fanout.sample.SeedOrder;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.IntPredicate;

/**
 * Epochs sampled on the fly from an in-memory or memory-mapped graph, without shards: seeds are
 * shuffled per epoch (when asked) in the sampler library's {@link SeedOrder}, cut into batches, and
 * sampled by its {@link NeighborSampler} on the loader's background threads. Used for sampled
 * inference and for training without a {@code sample} step.
 *
 * <p>Each batch is a part of its own (unless {@link #batchesPerPart} says otherwise), so the
 * loader's thread {@code t} samples batches {@code t, t + threads, ...} and all threads stay busy
 * while the trainer takes the batches in order (with one contiguous range per thread, the threads
 * past the first would stop once their queues filled and an epoch would be sampled at about one
 * thread's speed). Each loader thread keeps one sampler worker, whose scratch serves all its
 * batches.
 */
public final class SampledEpochs implements EpochData {
  private final CsrGraph g;
  private final VertexTable vertices;
  private final FeatureTable features;
  private final int[] seeds;
  private final int[] fanouts;
  private final int batchSize;
  private final long seed;
  private final boolean shuffle;
  private final FeatureNormKind norm;
  private final int threads;
  private int prefetch = 4;
  private int batchesPerPart = 1;
  private boolean gather = true;
  private RowCache cache;
  private final NeighborSampler sampler;
  private final ThreadLocal<NeighborSampler.Worker> workers;

  /**
   * @param seeds dense ids of the seed vertices
   * @param norm feature row normalization (the model's)
   * @param threads loader threads (each holds a {@code vertices}-sized scratch array)
   */
  public SampledEpochs(
      CsrGraph g,
      VertexTable vertices,
      FeatureTable features,
      int[] seeds,
      int[] fanouts,
      int batchSize,
      long seed,
      boolean shuffle,
      FeatureNormKind norm,
      int threads) {
    if (batchSize <= 0) {
      throw new IllegalArgumentException("batch size must be positive, got " + batchSize);
    }
    this.g = g;
    this.vertices = vertices;
    this.features = features;
    this.seeds = seeds.clone();
    this.fanouts = fanouts.clone();
    this.batchSize = batchSize;
    this.seed = seed;
    this.shuffle = shuffle;
    this.norm = norm;
    this.threads = Math.max(1, threads);
    this.sampler = new NeighborSampler(g, vertices, fanouts, seed);
    this.workers = ThreadLocal.withInitial(sampler::newWorker);
  }

  /** Batches each loader thread may hold ready (default 4); returns this. */
  public SampledEpochs prefetch(int batches) {
    this.prefetch = Math.max(1, batches);
    return this;
  }

  /**
   * Parts of {@code batches} consecutive batches (default 1), each sampled in order by one loader
   * thread, as a shard file of that many batches is decoded; for measuring the loader. Returns
   * this.
   */
  public SampledEpochs batchesPerPart(int batches) {
    if (batches < 1) {
      throw new IllegalArgumentException("batches per part must be at least 1, got " + batches);
    }
    this.batchesPerPart = batches;
    return this;
  }

  /**
   * With {@code false} the loader threads only sample: batches come without features, and the
   * trainer reads them itself ({@link Trainer#readFeaturesFrom}, zero-copy feature access); the
   * norm must then be {@code none}. Returns this.
   */
  public SampledEpochs gather(boolean gather) {
    this.gather = gather;
    return this;
  }

  /**
   * Reads the features through {@code cache} (null: from the feature table): gathered on the
   * loader, or with {@link #gather gather(false)} resolved to the cache's slots for a trainer
   * reading them in place ({@link io.fanout.tensor.PagedFeatureRows}). The caller keeps ownership.
   * Returns this.
   */
  public SampledEpochs cache(RowCache cache) {
    this.cache = cache;
    return this;
  }

  /** The epoch's seed order: as given, or shuffled as {@code sample} orders a split's seeds. */
  int[] order(int epoch) {
    return shuffle ? SeedOrder.order(seeds, seed, epoch) : seeds;
  }

  @Override
  public int batches(int epoch) {
    return (seeds.length + batchSize - 1) / batchSize;
  }

  @Override
  public BatchStream open(int epoch) {
    return open(epoch, null);
  }

  /** Batches that {@code keep} rejects (null: none) are never sampled. */
  @Override
  public BatchStream open(int epoch, IntPredicate keep) {
    return open(epoch, keep, null);
  }

  /**
   * As {@link #open(int, IntPredicate)}, pruned for {@code hot} on the loader threads, which sample
   * nothing for the hot rows of the bottom hop ({@link NeighborSampler.Worker#leaveOutInLastHop}):
   * the pruned batches are those of pruning the fully sampled ones, and the rows that only hot rows
   * would reach are neither drawn nor deduplicated.
   */
  @Override
  public BatchStream open(int epoch, IntPredicate keep, HotSet hot) {
    int[] order = order(epoch);
    int batches = (order.length + batchSize - 1) / batchSize;
    List<BatchPart> list = new ArrayList<>();
    for (int b = 0; b < batches; b += batchesPerPart) {
      list.add(new Part(order, epoch, b, Math.min(batches, b + batchesPerPart), hot));
    }
    return new PipelinedLoader(
        list, features, features.dim(), norm, threads, prefetch, keep, cache, gather, hot);
  }

  /** Batches {@code [b0, b1)} of an epoch, sampled in order when its loader thread reads them. */
  private final class Part implements BatchPart {
    private final int[] order;
    private final int epoch;
    private final int b0;
    private final int b1;
    private final HotSet hot;

    Part(int[] order, int epoch, int b0, int b1, HotSet hot) {
      this.order = order;
      this.epoch = epoch;
      this.b0 = b0;
      this.b1 = b1;
      this.hot = hot;
    }

    @Override
    public String name() {
      return "sampled epoch "
          + epoch
          + (b1 - b0 == 1 ? " batch " + b0 : " batches " + b0 + ".." + b1);
    }

    @Override
    public Iterator<DecodedBatch> open() {
      return open(b -> true);
    }

    @Override
    public Iterator<DecodedBatch> open(IntPredicate keep) {
      NeighborSampler.Worker s = workers.get().leaveOutInLastHop(hot == null ? null : hot.slotOf());
      return new Iterator<>() {
        int b = b0;

        @Override
        public boolean hasNext() {
          while (b < b1 && !keep.test(b)) {
            b++;
          }
          return b < b1;
        }

        @Override
        public DecodedBatch next() {
          if (!hasNext()) {
            throw new NoSuchElementException();
          }
          int from = b * batchSize;
          int count = Math.min(batchSize, order.length - from);
          return new DecodedBatch(s.sample(epoch, b++, order, from, count), null);
        }
      };
    }
  }
}
