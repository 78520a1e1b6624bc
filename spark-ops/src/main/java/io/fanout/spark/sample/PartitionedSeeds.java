package io.fanout.spark.sample;

import io.fanout.graph.StorePartition;
import io.fanout.sample.PartialBatch;
import io.fanout.sample.PartitionBatches;
import io.fanout.sample.SampleHash;
import io.fanout.sample.SeedOrder;
import io.fanout.shard.ShardPlan;
import io.fanout.store.InvalidInputException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.IntPredicate;
import java.util.function.IntToLongFunction;
import java.util.function.LongToIntFunction;
import scala.Tuple2;

/**
 * The seed stage of the partitioned mode: the seeds each store partition owns, per epoch under
 * their sort keys; their count per partition ({@code --batch-by-partition}); and the seed batches
 * built from the sorted, indexed seeds.
 */
final class PartitionedSeeds {
  private PartitionedSeeds() {}

  /** The seeds a partition owns, for every epoch, lazily: (epoch, sort key) -> label|vertex. */
  static SeedIterator seeds(SampleSpec spec, int p) {
    StorePartition part = OpenPartitions.get(spec, p);
    int first = (int) part.firstVertex();
    return new SeedIterator(
        spec.seed,
        spec.epochs,
        first,
        (int) (first + part.numVertices()),
        v -> SeedOrder.inSplit(spec.splitCode, part.split(v)),
        v -> (long) part.label(v) << 32 | (v & 0xFFFFFFFFL),
        epochKey ->
            spec.batchByPartition
                ? PartitionBatches.partitionRanks(epochKey, spec.firsts.length - 1)[p]
                : 0);
  }

  /**
   * The seeds among the vertices {@code [first, end)}, for every epoch, lazily: (epoch, group,
   * {@link SeedOrder#sortKey} of the vertex) -> a value of the vertex. A vertex's key is the one
   * the replicated mode sorts it by, so a global sort of every range's seeds gives its seed order.
   */
  static final class SeedIterator implements Iterator<Tuple2<EpochKey, Long>> {
    private final long seed;
    private final int epochs;
    private final int first;
    private final int end;
    private final IntPredicate isSeed;
    private final IntToLongFunction value;
    private final LongToIntFunction groupOfEpoch;
    private int epoch;
    private int v;
    private long epochKey;
    private int group;

    /**
     * @param isSeed whether a vertex of the range is a seed (in the split sampled)
     * @param value what the seed carries, by vertex
     * @param groupOfEpoch the range's group (sorted ahead of the key) from the epoch's key
     */
    SeedIterator(
        long seed,
        int epochs,
        int first,
        int end,
        IntPredicate isSeed,
        IntToLongFunction value,
        LongToIntFunction groupOfEpoch) {
      this.seed = seed;
      this.epochs = epochs;
      this.first = first;
      this.end = end;
      this.isSeed = isSeed;
      this.value = value;
      this.groupOfEpoch = groupOfEpoch;
      this.v = first;
      startEpoch();
      advance();
    }

    private void startEpoch() {
      epochKey = SampleHash.epochKey(seed, epoch);
      group = groupOfEpoch.applyAsInt(epochKey);
    }

    private void advance() {
      while (epoch < epochs) {
        while (v < end) {
          if (isSeed.test(v)) {
            return;
          }
          v++;
        }
        epoch++;
        v = first;
        if (epoch < epochs) {
          startEpoch();
        }
      }
    }

    @Override
    public boolean hasNext() {
      return epoch < epochs;
    }

    @Override
    public Tuple2<EpochKey, Long> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      Tuple2<EpochKey, Long> t =
          new Tuple2<>(
              new EpochKey(epoch, group, SeedOrder.sortKey(epochKey, v)), value.applyAsLong(v));
      v++;
      advance();
      return t;
    }
  }

  /**
   * Where the seed at {@code index} of the globally sorted seeds of every epoch goes: its batch id
   * ({@code epoch << 32 | batch}) and {@code {position in the batch, value}}.
   *
   * @param chunks with --batch-by-partition, per epoch the batch of each chunk of the sort; or null
   * @throws InvalidInputException when the epoch holds another number of seeds than planned
   */
  static Tuple2<Long, long[]> place(
      int epoch,
      long index,
      long value,
      ShardPlan plan,
      int batchSize,
      int[][] chunks,
      String store,
      String split) {
    long seedsPerEpoch = plan.seeds();
    long idx = index - epoch * seedsPerEpoch;
    if (idx < 0 || idx >= seedsPerEpoch) {
      throw new InvalidInputException(
          store
              + ": split '"
              + split
              + "' has a different number of vertices in the nodes files than "
              + seedsPerEpoch
              + " in its manifest");
    }
    int batch = (int) (idx / batchSize);
    if (chunks != null) {
      batch = chunks[epoch][batch];
    }
    return new Tuple2<>(
        PartitionedSampling.batchId(epoch, batch), new long[] {idx % batchSize, value});
  }

  /** The values of batch {@code id}'s seeds ({@code {position, value}}) in position order. */
  static long[] inOrder(long id, Iterable<long[]> seeds) {
    List<long[]> list = new ArrayList<>();
    seeds.forEach(list::add);
    list.sort((a, b) -> Long.compare(a[0], b[0]));
    long[] out = new long[list.size()];
    for (int i = 0; i < out.length; i++) {
      if (list.get(i)[0] != i) {
        throw new IllegalStateException("batch " + id + " lacks seed position " + i);
      }
      out[i] = list.get(i)[1];
    }
    return out;
  }

  /** The seeds of a partition's batches, built one batch at a time as the task pulls them. */
  static final class SeedBatches implements Iterator<Tuple2<Long, PartialBatch>> {
    private final SampleSpec spec;
    private final ExecutorNegatives negatives;
    private final Iterator<Tuple2<Long, Iterable<long[]>>> in;

    SeedBatches(
        SampleSpec spec, ExecutorNegatives negatives, Iterator<Tuple2<Long, Iterable<long[]>>> in) {
      this.spec = spec;
      this.negatives = negatives;
      this.in = in;
    }

    @Override
    public boolean hasNext() {
      return in.hasNext();
    }

    @Override
    public Tuple2<Long, PartialBatch> next() {
      Tuple2<Long, Iterable<long[]>> t = in.next();
      return new Tuple2<>(
          t._1(),
          spec.link == null
              ? seedBatch(spec, t._1(), t._2())
              : PartitionedLinkSeeds.seedBatch(spec, negatives.sampler(), t._1(), t._2()));
    }
  }

  /** The seeds a store partition holds, in the split sampled. */
  static long countSeeds(SampleSpec spec, int p) {
    StorePartition part = OpenPartitions.get(spec, p);
    int from = (int) part.firstVertex();
    int to = (int) (part.firstVertex() + part.numVertices());
    long n = 0;
    for (int v = from; v < to; v++) {
      if (SeedOrder.inSplit(spec.splitCode, part.split(v))) {
        n++;
      }
    }
    return n;
  }

  private static PartialBatch seedBatch(SampleSpec spec, long id, Iterable<long[]> seeds) {
    long[] packed = inOrder(id, seeds);
    int[] vs = new int[packed.length];
    int[] labels = new int[packed.length];
    for (int i = 0; i < vs.length; i++) {
      vs[i] = (int) packed[i];
      labels[i] = (int) (packed[i] >> 32);
    }
    return PartialBatch.seeds((int) (id >>> 32), (int) id, spec.fanouts.length, vs, labels);
  }
}
