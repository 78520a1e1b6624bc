package io.fanout.spark.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.HeldOutEdges;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedSchema;
import io.fanout.graph.VertexTable;
import io.fanout.sample.LinkPairs;
import io.fanout.sample.NegativeSampler;
import io.fanout.sample.OrderedBatchStream;
import io.fanout.sample.SeedOrder;
import io.fanout.sample.TrainEdges;
import io.fanout.sample.TypedBatchBuilder;
import io.fanout.sample.TypedFanouts;
import io.fanout.sample.TypedHeldOutLinkSampler;
import io.fanout.sample.TypedLinkRelation;
import io.fanout.sample.TypedLinkSampler;
import io.fanout.sample.TypedLinkSeeds;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.sample.TypedNeighborSampler;
import io.fanout.sample.TypedPartialBatch;
import io.fanout.shard.ShardPlan;
import io.fanout.spark.sample.HopExchange.Request;
import io.fanout.store.StoreLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

/**
 * The typed partitioned mode's pieces in one JVM, without Spark: seeds from every seed-type
 * partition sorted by their keys give the replicated seed order; each batch's destinations grouped
 * by owner, answered by the owners (in any order) and joined back hop by hop give exactly the
 * batches of {@link TypedNeighborSampler}, over partitions of uneven sizes (one empty) and a
 * multi-label seed type; link batches started from every partition's training edges of the link
 * relation give exactly {@link TypedLinkSampler}'s, and batches of the held-out val and test pairs
 * cut into one run per partition exactly {@link TypedHeldOutLinkSampler}'s, pairs and labels
 * included, without their positives in the relation's or its reverse's blocks; {@link TypedOwners}
 * and {@link HopExchange#group} route every node to the partition whose range holds it.
 */
class TypedHopExchangeTest {
  static final long[][] STARTS = {{0, 40, 40, 110, 200}, {0, 30, 80}, {0, 30}};

  @Test
  void ownersAnswerTheReplicatedBatches() {
    TypedGraph g = SplitOpener.graph();
    for (String text :
        new String[] {"cites=4,2;writes=-1,0;*=2,1", "3,0,-1", "has_term=0,5;*=2,2"}) {
      int[][] f = TypedFanouts.parse(text, g.schema());
      ShardPlan plan = new ShardPlan(200, 24, 2, 3);
      TypedSampleSpec spec =
          new TypedSampleSpec(
              "mem-" + text.hashCode(),
              "fp",
              SplitOpener.class.getName(),
              0,
              "paper",
              SeedOrder.ALL,
              "all",
              24,
              f,
              text,
              2,
              31,
              "zstd",
              1,
              plan,
              null);
      TypedOwners owners = TypedOwners.of(g);
      TypedNeighborSampler sampler = new TypedNeighborSampler(g, 0, f, 31);
      TypedNeighborSampler.Worker w = sampler.newWorker();
      for (int epoch = 0; epoch < 2; epoch++) {
        int[] order = seedOrder(spec, owners, epoch);
        assertThat(order).isEqualTo(sampler.order(SeedOrder.ALL, epoch));
        for (int b = 0; b * 24 < order.length; b++) {
          int count = Math.min(24, order.length - b * 24);
          TypedPartialBatch pb =
              TypedPartialBatch.seeds(
                  epoch,
                  b,
                  3,
                  0,
                  f[0].length,
                  f.length,
                  Arrays.copyOfRange(order, b * 24, b * 24 + count));
          long id = PartitionedSampling.batchId(epoch, b);
          for (int h = 1; h <= f[0].length; h++) {
            List<TypedHopExchange.Answer> answers = new ArrayList<>();
            for (Iterator<Tuple2<Integer, Request>> it =
                    TypedHopExchange.frontier(spec, owners, id, pb);
                it.hasNext(); ) {
              Tuple2<Integer, Request> t = it.next();
              answers.add(TypedHopExchange.sample(spec, owners, t._1(), h, t._2()));
            }
            Collections.reverse(answers); // a join delivers answers in any order
            pb = TypedHopExchange.extend(spec, owners, pb, answers);
          }
          assertSame(pb.toMiniBatch(), w.sample(epoch, b, order, b * 24, count));
        }
      }
    }
  }

  @Test
  void ownersAnswerTheReplicatedLinkBatches() {
    TypedGraph g = SplitOpener.graph();
    int[] reverses = {2};
    int[][] f = TypedFanouts.parse("writes=-1,2;written_by=3,1;*=2,1", g.schema());
    TrainEdges all = TrainEdges.ofRelation(g.inNeighbors(1), false);
    int batchSize = 20;
    for (String mode : new String[] {"degree", "uniform"}) {
      TypedSampleSpec spec =
          new TypedSampleSpec(
              "mem-link-" + mode,
              "fp",
              SplitOpener.class.getName(),
              0,
              "paper",
              SeedOrder.ALL,
              "train",
              batchSize,
              f,
              "link",
              2,
              13,
              "zstd",
              1,
              new ShardPlan(all.size(), batchSize, 2, 3),
              null);
      spec.link =
          new TypedLinkRequest(
              "writes",
              1,
              reverses,
              new LinkSpec(mode, 2, false),
              TypedLinkRelation.of(g.schema(), 1, reverses),
              null);
      TypedOwners owners = TypedOwners.of(g);
      List<Integer> counts = new ArrayList<>();
      List<int[]> degrees = new ArrayList<>();
      for (int p = 0; p < owners.partitions(0); p++) {
        counts.add(TypedPartitionedLinkSeeds.edges(spec, owners, owners.first(0) + p).size());
        var part = TypedOpenPartitions.get(spec, 0, p);
        degrees.add(
            PartitionedLinkSeeds.rowDegrees(
                part.inNeighbors(1), part.firstVertex(), part.endVertex() - part.firstVertex()));
      }
      long[] offsets = PartitionedLinkSeeds.offsets(counts, all.size(), spec.store);
      NegativeSampler negatives =
          PartitionedLinkSeeds.negatives(mode, owners.starts(0), () -> degrees);
      TypedLinkSampler sampler =
          new TypedLinkSampler(
              g, 1, reverses, f, 13, all, NegativeSampler.of(mode, g.inNeighbors(1)), 2, false);
      TypedLinkSeeds seeds = new TypedLinkSeeds(spec.link.types(), negatives, 2, 13);
      assertLinkBatches(spec, owners, offsets, seeds, all.ids(), sampler.newWorker()::sample);
    }
  }

  @Test
  void ownersAnswerTheReplicatedHeldOutBatches() {
    TypedGraph g = SplitOpener.graph();
    int[] reverses = {2};
    int[][] f = TypedFanouts.parse("writes=-1,2;written_by=3,1;*=2,1", g.schema());
    for (String split : new String[] {"val", "test"}) {
      HeldOutEdges pairs = g.heldOutEdges(split);
      int batchSize = 9;
      TypedSampleSpec spec =
          new TypedSampleSpec(
              "mem-held-out-" + split,
              "fp",
              SplitOpener.class.getName(),
              0,
              "paper",
              StoreLayout.splitCode(split),
              split,
              batchSize,
              f,
              "link",
              2,
              17,
              "zstd",
              1,
              new ShardPlan(pairs.size(), batchSize, 2, 3),
              null);
      spec.link =
          new TypedLinkRequest(
              "writes", 1, reverses, null, TypedLinkRelation.of(g.schema(), 1, reverses), split);
      int[] ids = new int[pairs.size()];
      Arrays.setAll(ids, i -> i);
      TypedHeldOutLinkSampler sampler =
          new TypedHeldOutLinkSampler(g, 1, reverses, f, 17, pairs, false);
      assertLinkBatches(
          spec,
          TypedOwners.of(g),
          null,
          TypedPartitionedLinkSeeds.starter(spec, null),
          ids,
          sampler.newWorker()::sample);
    }
  }

  /**
   * For every epoch of {@code spec}: the seeds every partition of the seed type emits, sorted by
   * their keys, started by {@code seeds} and answered by the owners hop by hop, give the batches of
   * {@code want} over the seed order of {@code ids}, pairs included, without their positives in the
   * blocks of the link relation or its reverse.
   */
  private static void assertLinkBatches(
      TypedSampleSpec spec,
      TypedOwners owners,
      long[] offsets,
      TypedLinkSeeds seeds,
      int[] ids,
      OrderedBatchStream.Worker<TypedMiniBatch> want) {
    int batchSize = spec.batchSize;
    TypedBatchBuilder builder = TypedHopExchange.builder(spec, owners);
    for (int epoch = 0; epoch < spec.epochs; epoch++) {
      List<long[]> keyed = new ArrayList<>();
      for (int p = 0; p < owners.partitions(spec.seedType); p++) {
        final int e = epoch;
        TypedPartitionedLinkSeeds.seeds(spec, owners, owners.first(spec.seedType) + p, offsets)
            .forEachRemaining(
                t -> {
                  if (t._1().epoch == e) {
                    keyed.add(new long[] {t._1().key, t._2()});
                  }
                });
      }
      keyed.sort((a, b) -> Long.compare(a[0], b[0]));
      int[] order = SeedOrder.order(ids, spec.seed, epoch);
      assertThat(keyed).hasSize(order.length);
      for (int b = 0; b * batchSize < order.length; b++) {
        int count = Math.min(batchSize, order.length - b * batchSize);
        List<long[]> placed = new ArrayList<>();
        for (int i = count - 1; i >= 0; i--) { // a group delivers seeds in any order
          placed.add(new long[] {i, keyed.get(b * batchSize + i)[1]});
        }
        long id = PartitionedSampling.batchId(epoch, b);
        TypedPartialBatch pb =
            TypedPartitionedLinkSeeds.seedBatch(spec, seeds, builder, id, placed);
        for (int h = 1; h <= spec.fanouts[0].length; h++) {
          List<TypedHopExchange.Answer> answers = new ArrayList<>();
          for (Iterator<Tuple2<Integer, Request>> it =
                  TypedHopExchange.frontier(spec, owners, id, pb);
              it.hasNext(); ) {
            Tuple2<Integer, Request> t = it.next();
            answers.add(TypedHopExchange.sample(spec, owners, t._1(), h, t._2()));
          }
          Collections.reverse(answers);
          pb = TypedHopExchange.extend(spec, owners, pb, answers);
        }
        TypedMiniBatch got = pb.toMiniBatch();
        TypedMiniBatch expected = want.sample(epoch, b, order, b * batchSize, count);
        assertSame(got, expected);
        assertThat(got.pairs().src()).isEqualTo(expected.pairs().src());
        assertThat(got.pairs().dst()).isEqualTo(expected.pairs().dst());
        assertThat(got.pairs().label()).isEqualTo(expected.pairs().label());
        assertNoPositiveEdge(got);
      }
    }
  }

  /** No block of writes (1) or its reverse written_by (2) holds one of the batch's positives. */
  private static void assertNoPositiveEdge(TypedMiniBatch b) {
    LinkPairs p = b.pairs();
    java.util.Set<Long> positives = new java.util.HashSet<>();
    for (int i = 0; i < p.size(); i++) {
      if (p.label()[i] == 1) {
        positives.add((long) b.nodes(1)[p.src()[i]] << 32 | b.nodes(0)[p.dst()[i]]);
      }
    }
    assertThat(positives).isNotEmpty();
    for (int h = 1; h <= b.layers(); h++) {
      for (int r : new int[] {1, 2}) {
        int[] ptr = b.indptr(h, r);
        int dstType = r == 1 ? 0 : 1;
        int srcType = 1 - dstType;
        for (int i = 0; i + 1 < ptr.length; i++) {
          for (int e = ptr[i]; e < ptr[i + 1]; e++) {
            int u = b.nodes(srcType)[b.indices(h, r)[e]];
            int v = b.nodes(dstType)[i];
            long author = r == 1 ? u : v;
            long paper = r == 1 ? v : u;
            assertThat(positives).doesNotContain(author << 32 | paper);
          }
        }
      }
    }
  }

  private static int[] seedOrder(TypedSampleSpec spec, TypedOwners owners, int epoch) {
    List<long[]> keyed = new ArrayList<>();
    for (int p = 0; p < owners.partitions(0); p++) {
      var part = TypedOpenPartitions.get(spec, 0, p);
      var it =
          new PartitionedSeeds.SeedIterator(
              spec.seed,
              spec.epochs,
              (int) part.firstVertex(),
              (int) part.endVertex(),
              v -> true,
              v -> v,
              k -> 0);
      it.forEachRemaining(
          t -> {
            if (t._1().epoch == epoch) {
              keyed.add(new long[] {t._1().key, t._2()});
            }
          });
    }
    keyed.sort((a, b) -> Long.compare(a[0], b[0]));
    return keyed.stream().mapToInt(k -> (int) k[1]).toArray();
  }

  private static void assertSame(TypedMiniBatch got, TypedMiniBatch want) {
    assertThat(got.layerSizes()).isDeepEqualTo(want.layerSizes());
    for (int t = 0; t < got.numTypes(); t++) {
      assertThat(got.nodes(t)).isEqualTo(want.nodes(t));
    }
    for (int h = 1; h <= got.layers(); h++) {
      for (int r = 0; r < got.numRelations(); r++) {
        assertThat(got.indptr(h, r)).as("indptr h%d r%d", h, r).isEqualTo(want.indptr(h, r));
        assertThat(got.indices(h, r)).as("indices h%d r%d", h, r).isEqualTo(want.indices(h, r));
      }
    }
    assertThat(got.labels()).isEqualTo(want.labels());
    assertThat(got.labelPtr()).isEqualTo(want.labelPtr());
    assertThat(got.labelIds()).isEqualTo(want.labelIds());
    assertThat(got.epoch()).isEqualTo(want.epoch());
    assertThat(got.batch()).isEqualTo(want.batch());
  }

  @Test
  void everyNodeGoesToThePartitionHoldingIt() {
    TypedOwners owners = TypedOwners.of(SplitOpener.graph());
    assertThat(owners.count()).isEqualTo(4 + 2 + 1);
    SplittableRandom r = new SplittableRandom(4);
    for (int t = 0; t < STARTS.length; t++) {
      long[] s = STARTS[t];
      assertThat(owners.starts(t)).isEqualTo(s);
      int n = (int) s[s.length - 1];
      int[] nodes = new int[60];
      for (int i = 0; i < nodes.length; i++) {
        nodes[i] = r.nextInt(n);
      }
      List<Tuple2<Integer, Request>> out = new ArrayList<>();
      HopExchange.group(9L, nodes, 50, s, owners.first(t), out);
      int[] seen = new int[50];
      int previous = -1;
      for (Tuple2<Integer, Request> q : out) {
        int owner = q._1();
        assertThat(owner).isGreaterThan(previous);
        previous = owner;
        assertThat(owners.type(owner)).isEqualTo(t);
        int p = owners.part(owner);
        assertThat(q._2().batchId).isEqualTo(9L);
        for (int k = 0; k < q._2().local.length; k++) {
          int i = q._2().local[k];
          assertThat(q._2().nodes[k]).isEqualTo(nodes[i]);
          assertThat(nodes[i]).isGreaterThanOrEqualTo((int) s[p]).isLessThan((int) s[p + 1]);
          seen[i]++;
        }
        assertThat(q._2().local).isSorted();
      }
      assertThat(seen).containsOnly(1);
    }
  }

  /**
   * A typed "store" in memory: papers (multi-label), authors and terms over four relations, split
   * into {@link #STARTS} partitions per type.
   */
  public static final class SplitOpener implements TypedStoreOpener {
    private static TypedGraph graph;

    static synchronized TypedGraph graph() {
      if (graph == null) {
        graph = split(build(23));
      }
      return graph;
    }

    @Override
    public boolean isTyped(Path store) {
      return true;
    }

    @Override
    public TypedGraph open(Path store, boolean verify) {
      return graph();
    }

    @Override
    public String fingerprint(Path store) {
      return "fp";
    }

    private static ArrayTypedGraph build(long seed) {
      SplittableRandom r = new SplittableRandom(seed);
      int[] labels = new int[200];
      for (int v = 0; v < 200; v++) {
        labels[v] = r.nextInt(3);
      }
      int[][] cites = edges(200, 200, 900, r);
      int[][] writes = edges(80, 200, 500, r);
      int[][] terms = edges(30, 200, 300, r);
      return ArrayTypedGraph.builder()
          .type("paper", 200, 0, null, labels, new byte[200])
          .type("author", 80, 0, null, null, null)
          .type("term", 30, 0, null, null, null)
          .relation("cites", "paper", "paper", cites[0], cites[1])
          .relation("writes", "author", "paper", writes[0], writes[1])
          .relation("written_by", "paper", "author", writes[1], writes[0])
          .relation("has_term", "term", "paper", terms[0], terms[1])
          .build();
    }

    private static int[][] edges(int ns, int nd, int m, SplittableRandom r) {
      LinkedHashSet<Long> seen = new LinkedHashSet<>();
      for (int e = 0; e < m; e++) {
        seen.add((long) r.nextInt(ns) << 32 | (int) (nd * Math.pow(r.nextDouble(), 2)));
      }
      int[] src = new int[seen.size()];
      int[] dst = new int[seen.size()];
      int i = 0;
      for (long k : seen) {
        src[i] = (int) (k >>> 32);
        dst[i++] = (int) k;
      }
      return new int[][] {src, dst};
    }

    /** {@code g} with {@link #STARTS} partitions and paper multi-label ({v % 3} and more). */
    private static TypedGraph split(ArrayTypedGraph g) {
      List<TypedSchema.VertexType> types = new ArrayList<>(g.schema().types());
      TypedSchema.VertexType p = types.get(0);
      types.set(
          0,
          new TypedSchema.VertexType(
              p.name(), p.firstVertex(), p.count(), p.featureDim(), p.featureEncoding(), 3, true));
      TypedSchema schema = new TypedSchema(types, g.schema().relations());
      return new TypedGraph() {
        @Override
        public TypedSchema schema() {
          return schema;
        }

        @Override
        public CsrGraph inNeighbors(int relation) {
          return g.inNeighbors(relation);
        }

        @Override
        public VertexTable vertices(int type) {
          return g.vertices(type);
        }

        @Override
        public FeatureTable features(int type) {
          return g.features(type);
        }

        @Override
        public int[] labelSet(int type, int v) {
          return type != 0
              ? TypedGraph.super.labelSet(type, v)
              : v % 5 == 0 ? new int[0] : v % 2 == 0 ? new int[] {v % 3} : new int[] {0, 1, 2};
        }

        @Override
        public List<String> linkRelations() {
          return List.of("writes", "written_by");
        }

        /** 61 author-to-paper pairs of each held-out split, every third a positive. */
        @Override
        public HeldOutEdges heldOutEdges(String split) {
          int n = 61;
          int shift = split.equals("val") ? 1 : 2;
          int[] src = new int[n];
          int[] dst = new int[n];
          byte[] label = new byte[n];
          for (int i = 0; i < n; i++) {
            src[i] = (7 * i + shift) % 80;
            dst[i] = (11 * i + shift) % 200;
            label[i] = (byte) (i % 3 == 0 ? 1 : 0);
          }
          return HeldOutEdges.of(src, dst, label);
        }

        @Override
        public long[] partitionStarts(int type) {
          return STARTS[type].clone();
        }
      };
    }
  }
}
