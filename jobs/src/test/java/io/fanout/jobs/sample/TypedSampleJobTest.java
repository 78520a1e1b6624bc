package io.fanout.jobs.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedGraph;
import io.fanout.sample.SeedOrder;
import io.fanout.sample.TypedFanouts;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.sample.TypedNeighborSampler;
import io.fanout.shard.ShardManifest;
import io.fanout.shard.TypedShardSet;
import io.fanout.spark.Fanout;
import io.fanout.spark.internal.Hooks;
import io.fanout.spark.sample.TypedStoreOpener;
import io.fanout.store.Checksums;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.SplittableRandom;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sample} on a typed store, through the {@link TypedStoreOpener} seam with an in-memory
 * {@link ArrayTypedGraph}: any thread count, and the partitioned mode, give byte-identical typed
 * shards, which read back as the batches the typed sampler gives directly; options not built for
 * typed stores are refused.
 */
class TypedSampleJobTest {
  static SparkSession spark;
  @TempDir static Path tmp;
  static Path store;

  @BeforeAll
  static void start() throws IOException {
    spark = SparkTestSession.start("TypedSampleJobTest");
    spark.conf().set(Hooks.TYPED_STORE_OPENER, InMemoryOpener.class.getName());
    store = tmp.resolve("typed.store");
    Files.createDirectories(store);
    Files.writeString(store.resolve(InMemoryOpener.MARKER), "17");
  }

  @AfterAll
  static void stop() {
    spark.conf().unset(Hooks.TYPED_STORE_OPENER);
    spark.stop();
  }

  private static void sample(Path out, String... options) {
    var action = Fanout.get(spark).sample(store.toString()).output(out.toString());
    for (int i = 0; i < options.length; i += 2) {
      action.option(options[i], options[i + 1]);
    }
    action.execute();
  }

  @Test
  void threadCountsGiveIdenticalShardsThatMatchTheSampler() throws Exception {
    String[] opts = {
      "split", "train",
      "batch-size", "16",
      "fanouts", "cites=4,2;writes=3,-1;*=2,1",
      "epochs", "2",
      "batches-per-shard", "3",
      "seed", "5"
    };
    Path a = tmp.resolve("t1");
    Path b = tmp.resolve("t3");
    sample(a, concat(opts, "threads", "1"));
    sample(b, concat(opts, "threads", "3"));
    // the partitioned mode through the opener's default partition (a view of the whole graph)
    Path c = tmp.resolve("partitioned");
    sample(c, concat(opts, "mode", "partitioned"));
    // 62 train papers / 16 = 4 batches = 2 parts per epoch
    assertThat(SameShards.assertByteIdentical(a, b, c)).hasSize(2 * 2);

    ShardManifest m = ShardManifest.readTyped(a);
    assertThat(m.typed.seedType).isEqualTo("paper");
    assertThat(m.typed.relations)
        .extracting(r -> r.name)
        .containsExactly("cites", "writes", "written_by", "has_term");
    assertThat(m.typed.relations.get(1).fanouts).containsExactly(3, -1);
    assertThat(m.options)
        .containsEntry("fanouts", "cites=4,2;writes=3,-1;written_by=2,1;has_term=2,1");
    assertThat(m.options).containsEntry("seed-type", "paper");
    assertThatThrownBy(() -> ShardManifest.read(a))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("typed shards of a heterogeneous graph");

    TypedGraph g = InMemoryOpener.graph(17);
    int[][] f = TypedFanouts.parse("cites=4,2;writes=3,-1;*=2,1", g.schema());
    TypedNeighborSampler s = new TypedNeighborSampler(g, 0, f, 5);
    TypedShardSet set = TypedShardSet.open(a);
    assertThat(set.epochs()).isEqualTo(2);
    for (int e = 0; e < 2; e++) {
      int[] order = s.order(StoreLayout.SPLIT_TRAIN, e);
      TypedNeighborSampler.Worker w = s.newWorker();
      Iterator<TypedMiniBatch> it = set.batches(e, true);
      int batches = SeedOrder.batches(order.length, 16);
      for (int bi = 0; bi < batches; bi++) {
        TypedMiniBatch got = it.next();
        TypedMiniBatch want = w.sample(e, bi, order, bi * 16, Math.min(16, order.length - bi * 16));
        assertThat(got.batch()).isEqualTo(bi);
        assertThat(got.layerSizes()).isDeepEqualTo(want.layerSizes());
        for (int t = 0; t < want.numTypes(); t++) {
          assertThat(got.nodes(t)).isEqualTo(want.nodes(t));
        }
        for (int h = 1; h <= 2; h++) {
          for (int r = 0; r < 4; r++) {
            assertThat(got.indptr(h, r)).isEqualTo(want.indptr(h, r));
            assertThat(got.indices(h, r)).isEqualTo(want.indices(h, r));
          }
        }
        assertThat(got.labels()).isEqualTo(want.labels());
      }
      assertThat(it.hasNext()).isFalse();
    }
  }

  @Test
  void inlineFeaturesAreByteIdenticalAcrossModesAndThreadsAndHoldTheGraphsRows() throws Exception {
    String[] opts = {
      "split", "train",
      "batch-size", "16",
      "fanouts", "cites=3,2;writes=2,-1;*=2,1",
      "epochs", "1",
      "batches-per-shard", "2",
      "seed", "9"
    };
    Path plain = tmp.resolve("fp");
    sample(plain, opts);
    for (String enc : new String[] {"f32", "f16"}) {
      Path a = tmp.resolve(enc + "-t1");
      sample(a, concat(opts, "features", enc, "threads", "1"));
      sample(tmp.resolve(enc + "-t3"), concat(opts, "features", enc, "threads", "3"));
      sample(tmp.resolve(enc + "-part"), concat(opts, "features", enc, "mode", "partitioned"));
      SameShards.assertByteIdentical(a, tmp.resolve(enc + "-t3"), tmp.resolve(enc + "-part"));
      ShardManifest m = ShardManifest.readTyped(a);
      assertThat(m.features).isEqualTo(enc);
      assertThat(m.typed.featureDims).containsExactly(2, 0, 0); // author, term: no features

      // the same batches as without --features, each with its papers' rows
      TypedGraph g = InMemoryOpener.graph(17);
      TypedShardSet set = TypedShardSet.open(a);
      Iterator<TypedMiniBatch> ids = TypedShardSet.open(plain).batches(0, true);
      Iterator<TypedMiniBatch> it = set.batches(0, true);
      int n = 0;
      while (it.hasNext()) {
        TypedMiniBatch b = it.next();
        TypedMiniBatch want = ids.next();
        assertThat(want.inlineFeatures()).isNull();
        assertThat(b.nodes(0)).isEqualTo(want.nodes(0));
        float[] rows = new float[b.nodes(0).length * 2];
        g.features(0).gather(b.nodes(0), 0, b.nodes(0).length, rows, 0);
        if (enc.equals("f16")) {
          for (int i = 0; i < rows.length; i++) {
            rows[i] = io.fanout.store.Half.toFloat(io.fanout.store.Half.fromFloat(rows[i]));
          }
        }
        assertThat(b.inlineFeatures()[0]).containsExactly(rows);
        assertThat(b.inlineFeatures()[1]).isNull();
        assertThat(b.inlineFeatures()[2]).isNull();
        n++;
      }
      assertThat(n).isEqualTo(m.batchesPerEpoch);
      assertThat(ids.hasNext()).isFalse();
    }
  }

  @Test
  void optionsNotBuiltForTypedStoresAreRefusedWithOneLine() {
    Path out = tmp.resolve("refused");
    assertThatThrownBy(() -> sample(out, "weighted", "true"))
        .hasMessageContaining("no relation of the typed store has edge weights")
        .hasMessageContaining("--weight-column");
    assertThatThrownBy(() -> sample(out, "features", "pq"))
        .hasMessageContaining("--features pq inlines the store's pq rows, but type 'paper'")
        .hasMessageContaining("--features f32|f16");
    assertThatThrownBy(() -> sample(out, "task", "link", "batch-by-partition", "true"))
        .hasMessageContaining("sample --batch-by-partition")
        .hasMessageContaining("--task link");
    assertThatThrownBy(() -> sample(out, "seed-type", "venue"))
        .hasMessageContaining("option 'seed-type' of sample is 'venue'")
        .hasMessageContaining("its types are paper, author, term");
    assertThatThrownBy(() -> sample(out, "fanouts", "cite=2;*=1"))
        .hasMessageContaining("unknown relation 'cite'; the graph's relations are cites, writes");
    assertThat(Files.exists(out.resolve(ShardManifest.FILE))).isFalse();
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /**
   * A typed "store" that is a directory with a marker file holding a seed: the graph is generated
   * from it in memory, on the driver and in every task alike.
   */
  public static final class InMemoryOpener implements TypedStoreOpener {
    static final String MARKER = "typed-test-graph";

    @Override
    public boolean isTyped(Path store) {
      return Files.isRegularFile(store.resolve(MARKER));
    }

    @Override
    public TypedGraph open(Path store, boolean verify) {
      try {
        return graph(Long.parseLong(Files.readString(store.resolve(MARKER)).trim()));
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

    static ArrayTypedGraph graph(long seed) {
      SplittableRandom r = new SplittableRandom(seed);
      int papers = 200;
      int authors = 80;
      int terms = 30;
      int[] labels = new int[papers];
      byte[] splits = new byte[papers];
      for (int v = 0; v < papers; v++) {
        labels[v] = r.nextInt(3);
        splits[v] = (byte) (1 + r.nextInt(3));
      }
      int[][] cites = edges(papers, papers, 900, r);
      int[][] writes = edges(authors, papers, 400, r);
      int[][] terms2 = edges(terms, papers, 300, r);
      float[] features = new float[papers * 2];
      for (int i = 0; i < features.length; i++) {
        features[i] = (i % 7) * 0.3f - 0.9f;
      }
      return ArrayTypedGraph.builder()
          .type("paper", papers, 2, features, labels, splits)
          .type("author", authors, 0, null, null, null)
          .type("term", terms, 0, null, null, null)
          .relation("cites", "paper", "paper", cites[0], cites[1])
          .relation("writes", "author", "paper", writes[0], writes[1])
          .relation("written_by", "paper", "author", writes[1], writes[0])
          .relation("has_term", "term", "paper", terms2[0], terms2[1])
          .build();
    }

    private static int[][] edges(int ns, int nd, int m, SplittableRandom r) {
      java.util.LinkedHashSet<Long> seen = new java.util.LinkedHashSet<>();
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
  }
}
