package io.fanout.spark.sample;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.StorePartition;
import io.fanout.sample.LinkPairBuilder;
import io.fanout.sample.LinkPairs;
import io.fanout.sample.NegativeSampler;
import io.fanout.sample.PartialBatch;
import io.fanout.sample.SampleHash;
import io.fanout.sample.SeedOrder;
import io.fanout.sample.TrainEdges;
import io.fanout.store.InvalidInputException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.IntToLongFunction;
import java.util.function.Supplier;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

/**
 * The seeds of {@code sample --task link --mode partitioned}: training-edge batches derived per
 * store partition in the replicated order. A partition's training edges are those whose destination
 * it owns, a contiguous run of {@link TrainEdges}' global order (rows by destination), so edge
 * {@code i} of partition {@code p} is global seed {@code offset[p] + i} and gets the replicated
 * sort key {@link SeedOrder#sortKey}{@code (epochKey, offset[p] + i)}. After the distributed sort,
 * each batch's positives build its pairs with the same {@link LinkPairBuilder} as the replicated
 * sampler; the seeds' labels are filled in by the partitions answering hop 1.
 */
final class PartitionedLinkSeeds {
  private PartitionedLinkSeeds() {}

  private static final Map<String, TrainEdges> EDGES = new HashMap<>();

  /** The training edges of partition {@code p}, computed once per JVM. */
  static TrainEdges edges(SampleSpec spec, int p) {
    String key = spec.storeFingerprint + "#" + spec.link.undirected() + "#" + p;
    synchronized (EDGES) {
      TrainEdges e = EDGES.get(key);
      if (e == null) {
        StorePartition part = OpenPartitions.get(spec, p);
        int first = (int) part.firstVertex();
        e =
            TrainEdges.of(
                part.csr(), first, first + (int) part.numVertices(), spec.link.undirected());
        EDGES.put(key, e);
      }
      return e;
    }
  }

  /**
   * {@code offsets[p]}: the global index of partition {@code p}'s first training edge; {@code
   * offsets[parts]} is their total, checked against the manifest's.
   */
  static long[] offsets(JavaSparkContext jsc, SampleSpec spec, int parts) {
    List<Integer> ids = new ArrayList<>();
    for (int p = 0; p < parts; p++) {
      ids.add(p);
    }
    List<Integer> counts =
        jsc.parallelize(ids, Math.max(parts, 1)).map(p -> edges(spec, p).size()).collect();
    return offsets(counts, spec.plan.seeds(), spec.store);
  }

  /**
   * The prefix sums of the partitions' training-edge {@code counts}, whose total must be {@code
   * expected} (the count the driver planned the batches for).
   */
  static long[] offsets(List<Integer> counts, long expected, String store) {
    int parts = counts.size();
    long[] offsets = new long[parts + 1];
    for (int p = 0; p < parts; p++) {
      offsets[p + 1] = offsets[p] + counts.get(p);
    }
    if (offsets[parts] != expected) {
      throw new InvalidInputException(
          store
              + ": the partitions hold "
              + offsets[parts]
              + " training edges but the manifest's edge_split train_pairs is "
              + expected);
    }
    return offsets;
  }

  /**
   * The negative sampler of the request, built on the executors; the degree mode reads every
   * partition's in-degrees there ({@link ExecutorNegatives}).
   */
  static ExecutorNegatives negatives(SampleSpec spec, long[] firsts) {
    return new ExecutorNegatives(
        spec.link.negatives(),
        firsts,
        spec.store + "#" + spec.storeFingerprint,
        p -> {
          StorePartition part = OpenPartitions.get(spec, p);
          return rowDegrees(part.csr(), part.firstVertex(), part.numVertices());
        });
  }

  /**
   * The negative sampler of {@code mode} over the vertices {@code [0, firsts[parts])}, held by
   * {@code parts} partitions from {@code firsts[p]} on; in the degree mode their in-degrees, one
   * array per partition from {@code perPartition} (run only then).
   */
  static NegativeSampler negatives(String mode, long[] firsts, Supplier<List<int[]>> perPartition) {
    int parts = firsts.length - 1;
    int n = (int) firsts[parts];
    if (!mode.equalsIgnoreCase("degree")) {
      return NegativeSampler.of(mode, n, v -> 0);
    }
    List<int[]> perPart = perPartition.get();
    int[] degrees = new int[n];
    for (int p = 0; p < parts; p++) {
      int[] d = perPart.get(p);
      System.arraycopy(d, 0, degrees, (int) firsts[p], d.length);
    }
    return NegativeSampler.of(mode, n, v -> degrees[v]);
  }

  /** The row lengths of {@code count} rows of {@code csr} from {@code first}. */
  static int[] rowDegrees(CsrGraph csr, long first, long count) {
    int[] d = new int[(int) count];
    for (int i = 0; i < d.length; i++) {
      int v = (int) first + i;
      d[i] = (int) (csr.rowEnd(v) - csr.rowStart(v));
    }
    return d;
  }

  /** Partition {@code p}'s seeds for every epoch, lazily: (epoch, sort key) -> src|dst. */
  static Iterator<Tuple2<EpochKey, Long>> seeds(SampleSpec spec, int p, long offset) {
    return seeds(edges(spec, p), offset, spec.seed, spec.epochs);
  }

  /**
   * The training edges {@code edges}, global seeds {@code offset ..} of the replicated order, for
   * every epoch, lazily: (epoch, sort key) -> src|dst.
   */
  static Iterator<Tuple2<EpochKey, Long>> seeds(
      TrainEdges edges, long offset, long seed, int epochs) {
    return seeds(
        edges.size(),
        i -> (long) edges.src(i) << 32 | (edges.dst(i) & 0xFFFFFFFFL),
        offset,
        seed,
        epochs);
  }

  /**
   * The {@code count} seeds {@code offset ..} of the replicated order of a link request (training
   * edges or held-out pairs, by index), for every epoch, lazily: (epoch, sort key) -> {@code
   * value(i)} of seed {@code offset + i}.
   */
  static Iterator<Tuple2<EpochKey, Long>> seeds(
      int count, IntToLongFunction value, long offset, long seed, int epochs) {
    return new Iterator<>() {
      private int epoch;
      private int i;
      private long epochKey = SampleHash.epochKey(seed, 0);

      @Override
      public boolean hasNext() {
        return epoch < epochs && count > 0;
      }

      @Override
      public Tuple2<EpochKey, Long> next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        Tuple2<EpochKey, Long> t =
            new Tuple2<>(
                new EpochKey(epoch, 0, SeedOrder.sortKey(epochKey, (int) (offset + i))),
                value.applyAsLong(i));
        if (++i == count) {
          i = 0;
          epoch++;
          epochKey = SampleHash.epochKey(seed, epoch);
        }
        return t;
      }
    };
  }

  /**
   * The state before hop 1 of batch {@code id}: {@code seeds} are (position, src|dst) of its
   * positives. The labels are placeholders until hop 1.
   */
  static PartialBatch seedBatch(
      SampleSpec spec, NegativeSampler negatives, long id, Iterable<long[]> seeds) {
    List<long[]> list = new ArrayList<>();
    seeds.forEach(list::add);
    list.sort((a, b) -> Long.compare(a[0], b[0]));
    int count = list.size();
    int[] src = new int[count];
    int[] dst = new int[count];
    for (int i = 0; i < count; i++) {
      long[] s = list.get(i);
      if (s[0] != i) {
        throw new IllegalStateException("batch " + id + " lacks seed position " + i);
      }
      src[i] = (int) (s[1] >>> 32);
      dst[i] = (int) s[1];
    }
    int epoch = (int) (id >>> 32);
    int batch = (int) id;
    LinkPairBuilder b = new LinkPairBuilder(negatives, spec.link.perPositive(), spec.seed);
    LinkPairs pairs = b.build(epoch, batch, src, dst, count);
    int[] nodes = java.util.Arrays.copyOf(b.nodes(), b.size());
    return PartialBatch.seeds(
        epoch, batch, spec.fanouts.length, nodes, new int[nodes.length], pairs);
  }
}
