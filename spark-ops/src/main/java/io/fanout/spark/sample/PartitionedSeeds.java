package io.fanout.spark.sample;

import io.fanout.graph.StorePartition;
import io.fanout.sample.NegativeSampler;
import io.fanout.sample.PartialBatch;
import io.fanout.sample.PartitionBatches;
import io.fanout.sample.SampleHash;
import io.fanout.sample.SeedOrder;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.broadcast.Broadcast;
import scala.Tuple2;

/**
 * The seed stage of the partitioned mode: the seeds each store partition owns, per epoch under
 * their sort keys; their count per partition ({@code --batch-by-partition}); and the seed batches
 * built from the sorted, indexed seeds.
 */
final class PartitionedSeeds {
  private PartitionedSeeds() {}

  /** The seeds a partition owns, for every epoch, lazily: (epoch, sort key) -> label|vertex. */
  static final class SeedIterator implements Iterator<Tuple2<EpochKey, Long>> {
    private final StorePartition part;
    private final SampleSpec spec;
    private final int first;
    private final int end;
    private int epoch;
    private final int p;
    private int v;
    private long epochKey;
    private int group;

    SeedIterator(SampleSpec spec, int p) {
      this.spec = spec;
      this.p = p;
      this.part = OpenPartitions.get(spec, p);
      this.first = (int) part.firstVertex();
      this.end = (int) (part.firstVertex() + part.numVertices());
      this.v = first;
      startEpoch();
      advance();
    }

    private void startEpoch() {
      epochKey = SampleHash.epochKey(spec.seed, epoch);
      group =
          spec.batchByPartition
              ? PartitionBatches.partitionRanks(epochKey, spec.firsts.length - 1)[p]
              : 0;
    }

    private void advance() {
      while (epoch < spec.epochs) {
        while (v < end) {
          if (SeedOrder.inSplit(spec.splitCode, part.split(v))) {
            return;
          }
          v++;
        }
        epoch++;
        v = first;
        if (epoch < spec.epochs) {
          startEpoch();
        }
      }
    }

    @Override
    public boolean hasNext() {
      return epoch < spec.epochs;
    }

    @Override
    public Tuple2<EpochKey, Long> next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      long packed = (long) part.label(v) << 32 | (v & 0xFFFFFFFFL);
      Tuple2<EpochKey, Long> t =
          new Tuple2<>(new EpochKey(epoch, group, SeedOrder.sortKey(epochKey, v)), packed);
      v++;
      advance();
      return t;
    }
  }

  /** The seeds of a partition's batches, built one batch at a time as the task pulls them. */
  static final class SeedBatches implements Iterator<Tuple2<Long, PartialBatch>> {
    private final SampleSpec spec;
    private final Broadcast<NegativeSampler> negatives;
    private final Iterator<Tuple2<Long, Iterable<long[]>>> in;

    SeedBatches(
        SampleSpec spec,
        Broadcast<NegativeSampler> negatives,
        Iterator<Tuple2<Long, Iterable<long[]>>> in) {
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
              : PartitionedLinkSeeds.seedBatch(spec, negatives.value(), t._1(), t._2()));
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
    List<long[]> list = new ArrayList<>();
    seeds.forEach(list::add);
    list.sort((a, b) -> Long.compare(a[0], b[0]));
    int[] vs = new int[list.size()];
    int[] labels = new int[list.size()];
    for (int i = 0; i < vs.length; i++) {
      if (list.get(i)[0] != i) {
        throw new IllegalStateException("batch " + id + " lacks seed position " + i);
      }
      vs[i] = (int) list.get(i)[1];
      labels[i] = (int) (list.get(i)[1] >> 32);
    }
    return PartialBatch.seeds((int) (id >>> 32), (int) id, spec.fanouts.length, vs, labels);
  }
}
