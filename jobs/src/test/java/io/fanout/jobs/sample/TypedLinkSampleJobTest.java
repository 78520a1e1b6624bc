package io.fanout.jobs.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.CsrGraph;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.HeldOutEdges;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedSchema;
import io.fanout.graph.VertexTable;
import io.fanout.sample.NegativeSampler;
import io.fanout.sample.SeedOrder;
import io.fanout.sample.TrainEdges;
import io.fanout.sample.TypedFanouts;
import io.fanout.sample.TypedHeldOutLinkSampler;
import io.fanout.sample.TypedLinkSampler;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.shard.ShardManifest;
import io.fanout.shard.TypedShardSet;
import io.fanout.spark.Fanout;
import io.fanout.spark.internal.Hooks;
import io.fanout.spark.sample.TypedStoreOpener;
import io.fanout.store.Checksums;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sample --task link} on a typed store whose link relation is {@code writes} (author to
 * paper, reverse {@code written_by}), through the {@link TypedStoreOpener} seam: any thread count
 * gives byte-identical shards, which read back as the batches {@link TypedLinkSampler} gives
 * directly, pairs included; the held-out pairs of {@code --split val|test} give the same shards in
 * both modes over uneven partitions; a store without a link relation is refused.
 */
class TypedLinkSampleJobTest {
  static SparkSession spark;
  @TempDir static Path tmp;
  static Path store;
  static Path plain;

  @BeforeAll
  static void start() throws IOException {
    spark = SparkTestSession.start("TypedLinkSampleJobTest");
    spark.conf().set(Hooks.TYPED_STORE_OPENER, LinkOpener.class.getName());
    store = tmp.resolve("link.store");
    Files.createDirectories(store);
    Files.writeString(store.resolve(LinkOpener.MARKER), "17 link");
    plain = tmp.resolve("plain.store");
    Files.createDirectories(plain);
    Files.writeString(plain.resolve(LinkOpener.MARKER), "17");
  }

  @AfterAll
  static void stop() {
    spark.conf().unset(Hooks.TYPED_STORE_OPENER);
    spark.stop();
  }

  private static void sample(Path graph, Path out, String... options) {
    var action = Fanout.get(spark).sample(graph.toString()).output(out.toString());
    for (int i = 0; i < options.length; i += 2) {
      action.option(options[i], options[i + 1]);
    }
    action.execute();
  }

  @Test
  void threadCountsGiveIdenticalLinkShardsThatMatchTheSampler() throws Exception {
    String[] opts = {
      "task", "link",
      "batch-size", "50",
      "fanouts", "cites=3,2;*=2,1",
      "num-negatives", "2",
      "epochs", "2",
      "batches-per-shard", "3",
      "seed", "5"
    };
    Path a = tmp.resolve("t1");
    Path b = tmp.resolve("t3");
    sample(store, a, concat(opts, "threads", "1"));
    sample(store, b, concat(opts, "threads", "3"));
    SameShards.assertByteIdentical(a, b);
    ShardManifest m = ShardManifest.readTyped(a);
    assertThat(m.typed.seedType).isEqualTo("paper");
    assertThat(m.typed.linkRelation).isEqualTo("writes");
    assertThat(m.typed.linkReverses).containsExactly("written_by");
    assertThat(m.options).containsEntry("task", "link").containsEntry("num-negatives", "2");

    TypedGraph g = LinkOpener.graph(17, true);
    int[][] f = TypedFanouts.parse("cites=3,2;*=2,1", g.schema());
    TrainEdges edges = TrainEdges.ofRelation(g.inNeighbors(1), false);
    assertThat(m.seedsPerEpoch).isEqualTo(edges.size());
    TypedLinkSampler s =
        new TypedLinkSampler(
            g,
            1,
            new int[] {2},
            f,
            5,
            edges,
            NegativeSampler.of("uniform", g.inNeighbors(1)),
            2,
            false);
    TypedShardSet set = TypedShardSet.open(a);
    for (int e = 0; e < 2; e++) {
      int[] order = SeedOrder.order(edges.ids(), 5, e);
      TypedLinkSampler.Worker w = s.newWorker();
      Iterator<TypedMiniBatch> it = set.batches(e, true);
      int batches = SeedOrder.batches(order.length, 50);
      for (int bi = 0; bi < batches; bi++) {
        TypedMiniBatch got = it.next();
        TypedMiniBatch want = w.sample(e, bi, order, bi * 50, Math.min(50, order.length - bi * 50));
        assertThat(got.layerSizes()).isDeepEqualTo(want.layerSizes());
        for (int t = 0; t < want.numTypes(); t++) {
          assertThat(got.nodes(t)).isEqualTo(want.nodes(t));
        }
        for (int h = 1; h <= 2; h++) {
          for (int r = 0; r < 4; r++) {
            assertThat(got.indices(h, r)).isEqualTo(want.indices(h, r));
          }
        }
        assertThat(got.pairs().src()).isEqualTo(want.pairs().src());
        assertThat(got.pairs().dst()).isEqualTo(want.pairs().dst());
        assertThat(got.pairs().label()).isEqualTo(want.pairs().label());
      }
      assertThat(it.hasNext()).isFalse();
    }
  }

  @Test
  void aSymmetricLinkRelationSeedsEachPairOnce() throws Exception {
    Path sym = tmp.resolve("symmetric.store");
    Files.createDirectories(sym);
    Files.writeString(sym.resolve(LinkOpener.MARKER), "17 link symmetric");
    Path out = tmp.resolve("sym-shards");
    sample(sym, out, "task", "link", "batch-size", "50", "fanouts", "*=2", "seed", "5");
    ShardManifest m = ShardManifest.readTyped(out);
    assertThat(m.typed.linkRelation).isEqualTo("cites");
    CsrGraph cites = LinkOpener.symmetric(17).inNeighbors(0);
    // each pair once, smaller id first, as an undirected one-type store's seeds
    long pairs = 0;
    for (int v = 0; v < cites.numVertices(); v++) {
      for (long p = cites.rowStart(v); p < cites.rowEnd(v); p++) {
        pairs += cites.neighbor(p) < v ? 1 : 0;
      }
    }
    assertThat(m.seedsPerEpoch).isEqualTo(pairs).isEqualTo(TrainEdges.of(cites, true).size());
    assertThat(m.seedsPerEpoch).isLessThan(TrainEdges.ofRelation(cites, true).size());
  }

  @Test
  void aStoreWithoutALinkRelationIsRefused() {
    assertThatThrownBy(() -> sample(plain, tmp.resolve("no"), "task", "link"))
        .hasMessageContaining("has no link relation")
        .hasMessageContaining("--link-relation");
    assertThatThrownBy(() -> sample(store, tmp.resolve("all"), "task", "link", "split", "all"))
        .hasMessageContaining("samples the training edges (--split train) or the held-out pairs");
  }

  @Test
  void theValSplitSamplesTheHeldOutPairsWithTheirStoredNegatives() throws Exception {
    String[] opts = {
      "task", "link", "split", "val", "batch-size", "7", "fanouts", "cites=3,2;*=2,1", "seed", "5"
    };
    Path a = tmp.resolve("val-t1");
    Path b = tmp.resolve("val-t3");
    sample(store, a, concat(opts, "threads", "1"));
    sample(store, b, concat(opts, "threads", "3"));
    SameShards.assertByteIdentical(a, b);
    ShardManifest m = ShardManifest.readTyped(a);
    assertThat(m.split).isEqualTo("val");
    assertThat(m.typed.linkRelation).isEqualTo("writes");
    assertThat(m.options).containsEntry("negatives", "stored").doesNotContainKey("num-negatives");

    TypedGraph g = LinkOpener.graph(17, true);
    HeldOutEdges h = g.heldOutEdges("val");
    assertThat(m.seedsPerEpoch).isEqualTo(h.size());
    TypedHeldOutLinkSampler s =
        new TypedHeldOutLinkSampler(
            g, 1, new int[] {2}, TypedFanouts.parse("cites=3,2;*=2,1", g.schema()), 5, h, false);
    int[] ids = new int[h.size()];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = i;
    }
    int[] order = SeedOrder.order(ids, 5, 0);
    TypedHeldOutLinkSampler.Worker w = s.newWorker();
    Iterator<TypedMiniBatch> it = TypedShardSet.open(a).batches(0, true);
    int pairs = 0;
    int positives = 0;
    for (int bi = 0; bi < SeedOrder.batches(order.length, 7); bi++) {
      TypedMiniBatch got = it.next();
      TypedMiniBatch want = w.sample(0, bi, order, bi * 7, Math.min(7, order.length - bi * 7));
      assertThat(got.layerSizes()).isDeepEqualTo(want.layerSizes());
      for (int t = 0; t < want.numTypes(); t++) {
        assertThat(got.nodes(t)).isEqualTo(want.nodes(t));
      }
      for (int hop = 1; hop <= 2; hop++) {
        for (int r = 0; r < 4; r++) {
          assertThat(got.indices(hop, r)).isEqualTo(want.indices(hop, r));
        }
      }
      assertThat(got.pairs().src()).isEqualTo(want.pairs().src());
      assertThat(got.pairs().dst()).isEqualTo(want.pairs().dst());
      assertThat(got.pairs().label()).isEqualTo(want.pairs().label());
      // every pair is a held-out pair of the store, label included, none drawn
      for (int i = 0; i < got.pairs().src().length; i++) {
        int e = order[bi * 7 + i];
        assertThat(got.nodes(1)[got.pairs().src()[i]]).isEqualTo(h.src[e]);
        assertThat(got.nodes(0)[got.pairs().dst()[i]]).isEqualTo(h.dst[e]);
        assertThat(got.pairs().label()[i]).isEqualTo(h.label[e]);
        positives += got.pairs().label()[i];
        pairs++;
      }
    }
    assertThat(it.hasNext()).isFalse();
    assertThat(pairs).isEqualTo(h.size());
    assertThat(positives).isEqualTo(h.positives());

    assertThatThrownBy(
            () -> sample(store, tmp.resolve("val-k"), concat(opts, "num-negatives", "3")))
        .hasMessageContaining("option 'num-negatives'")
        .hasMessageContaining("--edge-split-negatives");
  }

  @Test
  void thePartitionedModeSamplesTheHeldOutPairsAsTheReplicatedModeDoes() throws Exception {
    // the store's types are cut into uneven partitions (LinkOpener), paper's first one empty
    for (String split : new String[] {"val", "test"}) {
      String[] opts = {
        "task", "link",
        "split", split,
        "batch-size", "4",
        "fanouts", "cites=3,2;*=2,1",
        "epochs", "2",
        "batches-per-shard", "2",
        "seed", "9"
      };
      Path replicated = tmp.resolve(split + "-rep");
      Path partitioned = tmp.resolve(split + "-part");
      sample(store, replicated, concat(opts, "threads", "2"));
      sample(store, partitioned, concat(opts, "mode", "partitioned"));
      assertThat(SameShards.assertByteIdentical(replicated, partitioned)).hasSize(2 * 3);
      ShardManifest m = ShardManifest.readTyped(partitioned);
      assertThat(m.mode).isEqualTo("partitioned");
      assertThat(m.split).isEqualTo(split);
      assertThat(m.totals.seeds)
          .isEqualTo(ShardManifest.readTyped(replicated).totals.seeds)
          .isEqualTo(2L * LinkOpener.graph(17, true).heldOutEdges(split).positives());
    }
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /**
   * {@link TypedSampleJobTest.InMemoryOpener}'s graph, with link relation {@code writes} (and its
   * reverse {@code written_by}) when the marker file says {@code link}.
   */
  public static final class LinkOpener implements TypedStoreOpener {
    static final String MARKER = "typed-test-graph";

    @Override
    public boolean isTyped(Path store) {
      return Files.isRegularFile(store.resolve(MARKER));
    }

    @Override
    public TypedGraph open(Path store, boolean verify) {
      try {
        String[] m = Files.readString(store.resolve(MARKER)).trim().split(" ");
        if (m.length > 2) {
          return symmetric(Long.parseLong(m[0]));
        }
        return graph(Long.parseLong(m[0]), m.length > 1);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public String fingerprint(Path store) {
      try {
        return Checksums.sha256(Files.readString(store.resolve(MARKER)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /**
     * The graph with link relation {@code cites} (paper to paper), marked symmetric as {@code
     * prepare --undirected} marks a relation within one type.
     */
    static TypedGraph symmetric(long seed) {
      TypedGraph g = TypedSampleJobTest.InMemoryOpener.graph(seed);
      return new Forwarding(g) {

        @Override
        public List<String> linkRelations() {
          return List.of("cites");
        }

        @Override
        public boolean symmetric(int relation) {
          return relation == 0;
        }
      };
    }

    static TypedGraph graph(long seed, boolean link) {
      TypedGraph g = TypedSampleJobTest.InMemoryOpener.graph(seed);
      return new Forwarding(g) {

        @Override
        public List<String> linkRelations() {
          return link ? List.of("writes", "written_by") : List.of();
        }

        /** Uneven partitions of every type, paper's first one empty. */
        @Override
        public long[] partitionStarts(int type) {
          long n = g.vertices(type).numVertices();
          return link
              ? new long[] {0, type == 0 ? 0 : n / 3, n / 2, n}
              : super.partitionStarts(type);
        }

        /** 23 author-to-paper pairs of each held-out split, every third a positive. */
        @Override
        public HeldOutEdges heldOutEdges(String split) {
          if (!link) {
            return null;
          }
          int n = 23;
          int[] src = new int[n];
          int[] dst = new int[n];
          byte[] label = new byte[n];
          int authors = g.vertices(1).numVertices();
          int papers = g.vertices(0).numVertices();
          int shift = split.equals("val") ? 1 : 2;
          for (int i = 0; i < n; i++) {
            src[i] = (7 * i + shift) % authors;
            dst[i] = (11 * i + shift) % papers;
            label[i] = (byte) (i % 3 == 0 ? 1 : 0);
          }
          return HeldOutEdges.of(src, dst, label);
        }
      };
    }
  }

  /** A typed graph that answers as {@code g} does; subclasses add what a test's store records. */
  private abstract static class Forwarding implements TypedGraph {
    private final TypedGraph g;

    Forwarding(TypedGraph g) {
      this.g = g;
    }

    @Override
    public TypedSchema schema() {
      return g.schema();
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
  }
}
