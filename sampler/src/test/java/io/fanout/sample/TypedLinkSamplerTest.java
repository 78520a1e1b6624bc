package io.fanout.sample;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedSchema;
import io.fanout.shard.EncodedTypedBatch;
import io.fanout.shard.TypedBatchCodec;
import io.fanout.shard.TypedBatchShape;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link TypedLinkSampler} against a plain restatement: the pairs (positives, then {@code k}
 * negatives per positive drawn over the destination type), the seeds of both endpoint types in pair
 * order, the blocks of {@link TypedReferenceSampler} with the positives left out of the link
 * relation and its reverse, and the codec round trip of the pairs.
 */
class TypedLinkSamplerTest {
  private static final ArrayTypedGraph G = TypedTestGraphs.acmLike(300, 120, 40, 1500, 7);
  private static final long NEGATIVES_SALT = 0x4E45474154495645L; // LinkPairBuilder's key salt
  private static final int[][] FANOUTS = {{4, 2}, {3, 2}, {5, 1}, {2, 2}};
  private static final int CITES = 0;
  private static final int WRITES = 1;
  private static final int WRITTEN_BY = 2;

  @Test
  void pairsAndBlocksOfARelationBetweenTwoTypesMatchTheReference() {
    check(WRITES, new int[] {WRITTEN_BY}, 2, "uniform");
    check(WRITES, new int[] {WRITTEN_BY}, 3, "degree");
  }

  @Test
  void pairsAndBlocksOfARelationWithinOneTypeMatchTheReference() {
    check(CITES, new int[0], 2, "uniform");
    check(CITES, new int[0], 1, "in-batch");
  }

  @Test
  void aBatchDoesNotDependOnTheWorkerOrWhatItSampledBefore() {
    TypedLinkSampler s = sampler(WRITES, new int[] {WRITTEN_BY}, 2, "uniform", 11);
    int[] ids = s.edges().ids();
    TypedMiniBatch a = s.newWorker().sample(1, 3, ids, 40, 20);
    TypedLinkSampler.Worker w = s.newWorker();
    w.sample(0, 0, ids, 0, 30);
    TypedMiniBatch b = w.sample(1, 3, ids, 40, 20);
    TypedNeighborSamplerTest.assertSame(b, a);
    assertSamePairs(b.pairs(), a.pairs());
  }

  @Test
  void pairsSurviveTheCodec() {
    TypedLinkSampler s = sampler(WRITES, new int[] {WRITTEN_BY}, 2, "uniform", 3);
    TypedMiniBatch b = s.newWorker().sample(0, 1, s.edges().ids(), 5, 17);
    TypedBatchShape shape = TypedBatchShape.of(G.schema(), 2).withLinkRelation(WRITES);
    EncodedTypedBatch e = TypedBatchCodec.encode(b);
    TypedMiniBatch d = TypedBatchCodec.decode(e, shape);
    TypedNeighborSamplerTest.assertSame(d, b);
    assertSamePairs(d.pairs(), b.pairs());
  }

  private static TypedLinkSampler sampler(
      int relation, int[] reverses, int k, String mode, long seed) {
    TypedSchema.Relation rel = G.schema().relation(relation);
    TrainEdges edges =
        TrainEdges.ofRelation(G.inNeighbors(relation), rel.srcType() == rel.dstType());
    return new TypedLinkSampler(
        G,
        relation,
        reverses,
        FANOUTS,
        seed,
        edges,
        NegativeSampler.of(mode, G.inNeighbors(relation)),
        k,
        false);
  }

  private static void check(int relation, int[] reverses, int k, String mode) {
    long seed = 5;
    TypedLinkSampler s = sampler(relation, reverses, k, mode, seed);
    TypedSchema.Relation rel = G.schema().relation(relation);
    TrainEdges edges = s.edges();
    int[] order = SeedOrder.order(edges.ids(), seed, 2);
    int epoch = 2;
    int batch = 1;
    int from = 24;
    int count = 12;
    TypedMiniBatch got = s.newWorker().sample(epoch, batch, order, from, count);

    // the pairs in original (type-local) ids
    NegativeSampler neg = NegativeSampler.of(mode, G.inNeighbors(relation));
    List<int[]> pairs = new ArrayList<>();
    Set<Long> positives = new HashSet<>();
    for (int i = 0; i < count; i++) {
      int e = order[from + i];
      pairs.add(new int[] {edges.src(e), edges.dst(e), 1});
      positives.add(key(edges.src(e), edges.dst(e)));
    }
    int kk = mode.equals("in-batch") ? Math.min(k, count - 1) : k;
    long key =
        SampleHash.mix(
            SampleHash.batchKey(SampleHash.epochKey(seed, epoch), batch) ^ NEGATIVES_SALT);
    for (int i = 0; i < count; i++) {
      for (int j = 0; j < kk; j++) {
        int c =
            mode.equals("in-batch")
                ? pairs.get((i + 1 + j) % count)[1]
                : neg.draw(SampleHash.draw(key, (long) i * kk + j));
        assertThat(c).isBetween(0, (int) G.schema().type(rel.dstType()).count() - 1);
        pairs.add(new int[] {pairs.get(i)[0], c, 0});
      }
    }
    // seeds per type, in pair order (source, then destination)
    int types = G.schema().numTypes();
    List<Map<Integer, Integer>> seeds = new ArrayList<>();
    for (int t = 0; t < types; t++) {
      seeds.add(new LinkedHashMap<>());
    }
    for (int[] p : pairs) {
      seeds.get(rel.srcType()).putIfAbsent(p[0], seeds.get(rel.srcType()).size());
      seeds.get(rel.dstType()).putIfAbsent(p[1], seeds.get(rel.dstType()).size());
    }
    int[][] byType = new int[types][];
    for (int t = 0; t < types; t++) {
      byType[t] = seeds.get(t).keySet().stream().mapToInt(Integer::intValue).toArray();
    }
    boolean same = rel.srcType() == rel.dstType();
    Set<Integer> rev = new HashSet<>();
    for (int r : reverses) {
      rev.add(r);
    }
    TypedMiniBatch want =
        TypedReferenceSampler.sample(
            G,
            rel.dstType(),
            byType,
            FANOUTS,
            seed,
            epoch,
            batch,
            (r, u, v) ->
                r == relation
                        && (positives.contains(key(u, v)) || same && positives.contains(key(v, u)))
                    || rev.contains(r) && positives.contains(key(v, u)));
    TypedNeighborSamplerTest.assertSame(
        got,
        new TypedMiniBatch(
            want.epoch(),
            want.batch(),
            want.seedType(),
            new TypedBlocks(
                nodes(want), want.layerSizes(), blocks(want, true), blocks(want, false)),
            SeedLabels.single(minusOnes(want.numSeeds()))));
    assertThat(got.pairs().size()).isEqualTo(pairs.size());
    for (int i = 0; i < pairs.size(); i++) {
      int[] p = pairs.get(i);
      assertThat(got.nodes(rel.srcType())[got.pairs().src()[i]])
          .as("pair %d src", i)
          .isEqualTo(p[0]);
      assertThat(got.nodes(rel.dstType())[got.pairs().dst()[i]])
          .as("pair %d dst", i)
          .isEqualTo(p[1]);
      assertThat(got.pairs().src()[i]).isLessThan(got.layerSize(rel.srcType(), 0));
      assertThat(got.pairs().dst()[i]).isLessThan(got.layerSize(rel.dstType(), 0));
      assertThat(got.pairs().label()[i]).isEqualTo(p[2]);
    }
    // no positive edge is left in the relation's blocks, nor flipped in its reverse's
    for (int h = 1; h <= got.layers(); h++) {
      for (int r = 0; r < got.numRelations(); r++) {
        TypedSchema.Relation x = G.schema().relation(r);
        int[] ptr = got.indptr(h, r);
        for (int i = 0; i + 1 < ptr.length; i++) {
          int v = got.nodes(x.dstType())[i];
          for (int e = ptr[i]; e < ptr[i + 1]; e++) {
            int u = got.nodes(x.srcType())[got.indices(h, r)[e]];
            if (r == relation) {
              assertThat(positives).doesNotContain(key(u, v));
            } else if (rev.contains(r)) {
              assertThat(positives).doesNotContain(key(v, u));
            }
          }
        }
      }
    }
  }

  static void assertSamePairs(LinkPairs got, LinkPairs want) {
    assertThat(got.src()).isEqualTo(want.src());
    assertThat(got.dst()).isEqualTo(want.dst());
    assertThat(got.label()).isEqualTo(want.label());
  }

  private static long key(int u, int v) {
    return ((long) u << 32) | (v & 0xFFFFFFFFL);
  }

  private static int[][] nodes(TypedMiniBatch b) {
    int[][] out = new int[b.numTypes()][];
    for (int t = 0; t < out.length; t++) {
      out[t] = b.nodes(t);
    }
    return out;
  }

  private static int[][][] blocks(TypedMiniBatch b, boolean ptr) {
    int[][][] out = new int[b.layers()][b.numRelations()][];
    for (int h = 1; h <= b.layers(); h++) {
      for (int r = 0; r < b.numRelations(); r++) {
        out[h - 1][r] = ptr ? b.indptr(h, r) : b.indices(h, r);
      }
    }
    return out;
  }

  private static int[] minusOnes(int n) {
    int[] a = new int[n];
    java.util.Arrays.fill(a, -1);
    return a;
  }
}
