package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureCacheIo;
import io.fanout.features.RowCache;
import io.fanout.features.RowCacheSizing;
import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedStoreFixtures;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.nn.typed.TypedTestGraphs;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.TypedShardSet;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.BackendKind;
import io.fanout.train.HotBy;
import io.fanout.train.HotReuse;
import io.fanout.train.TrainSpec;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed training through the feature cache ({@link TypedRowCaches}, {@link TypedCachedStream}) on a
 * typed store of two featured types (paper: 3 f32 columns, 12 bytes a row, 24 rows; author: 2
 * columns, 8 bytes, 18 rows) and one embedded type: every policy, budget, window, read mode, loader
 * thread count and prefetch writes the checkpoint of the memory-mapped run byte for byte; the hits
 * and misses the log reports cover every row access; the budget is split by feature bytes and each
 * type's cache holds what Belady's MIN holds on a hand-checked sequence; what cannot be cached is
 * refused with one line.
 */
class TypedFeatureCacheTest {
  private static final ArrayTypedGraph G = TypedTestGraphs.small(3);
  private static final int PAPER = 0;
  private static final int AUTHOR = 1;

  /** 72 bytes: 48 for paper (two thirds of the feature bytes, 4 rows), 24 for author (3 rows). */
  private static final long SMALL = 72;

  @TempDir static Path tmp;
  private static Path store;
  private static Path shards;
  private static Path val;

  @BeforeAll
  static void writeStoreAndShards() throws Exception {
    store = tmp.resolve("typed.store");
    TypedStoreFixtures.write(
        store, G, new int[][] {{10, 14}, {7, 11}, {10}}, new int[][][] {null, null, null});
    try (TypedGraphStore g = TypedGraphStore.open(store, true)) {
      shards =
          TypedTestShards.write(
              g, tmp.resolve("shards"), StoreLayout.SPLIT_TRAIN, 2, 4, FeatureEncoding.NONE);
      val = TypedTestShards.val(g, tmp.resolve("val"));
    }
  }

  private static TypedCacheSettings cache(CachePolicy p, long bytes, FeatureCacheIo io, int win) {
    return new TypedCacheSettings(p, bytes, io, win);
  }

  /** Trains 3 epochs with validation shards; the checkpoint's bytes, and the log in {@code log}. */
  private static byte[] train(
      String name,
      TypedCacheSettings cache,
      TrainSpec.Loading loading,
      FeatureNormKind norm,
      StringBuilder log)
      throws Exception {
    return train(name, cache, loading, norm, log, HotReuse.OFF, BackendKind.CPU);
  }

  /** As above, with hot reuse {@code reuse} on backend {@code backend}. */
  private static byte[] train(
      String name,
      TypedCacheSettings cache,
      TrainSpec.Loading loading,
      FeatureNormKind norm,
      StringBuilder log,
      HotReuse reuse,
      BackendKind backend)
      throws Exception {
    Path modelDir = tmp.resolve("model-" + name);
    return TypedTestRuns.train(
        store,
        g ->
            TypedTestRuns.rgcn(g, shards, modelDir)
                .epochs(3)
                .featureNorm(norm)
                .backend(backend)
                .valShards(val)
                .loading(loading)
                .cache(cache)
                .reuse(reuse)
                .build(),
        log);
  }

  @Test
  void everyCacheTrainsTheCheckpointOfTheMappedStoreByteForByte() throws Exception {
    byte[] mapped = train("mapped", null, new TrainSpec.Loading(2, 2), FeatureNormKind.NONE, null);
    int window = RowCacheSizing.DEFAULT_WINDOW_BATCHES;
    Object[][] runs = {
      {"belady-t1-k1", cache(CachePolicy.BELADY, SMALL, FeatureCacheIo.BUFFERED, window), 1, 1},
      {"belady-t3-k4-w1", cache(CachePolicy.BELADY, SMALL, FeatureCacheIo.DIRECT, 1), 3, 4},
      {"belady-sync-auto", cache(CachePolicy.BELADY, SMALL, FeatureCacheIo.BUFFERED, 0), 0, 0},
      {"belady-all-w5", cache(CachePolicy.BELADY, 432, FeatureCacheIo.BUFFERED, 5), 2, 2},
      {"lru", cache(CachePolicy.LRU, SMALL, FeatureCacheIo.BUFFERED, window), 2, 2},
      {"none-direct", cache(CachePolicy.NONE, 0, FeatureCacheIo.DIRECT, window), 3, 1},
    };
    for (Object[] run : runs) {
      int threads = (Integer) run[2];
      TrainSpec.Loading loading =
          threads == 0 ? null : new TrainSpec.Loading(threads, (Integer) run[3]);
      assertThat(
              train(
                  (String) run[0],
                  (TypedCacheSettings) run[1],
                  loading,
                  FeatureNormKind.NONE,
                  null))
          .as((String) run[0])
          .isEqualTo(mapped);
    }
    assertThat(
            train(
                "cached-l2",
                cache(CachePolicy.BELADY, SMALL, FeatureCacheIo.BUFFERED, window),
                new TrainSpec.Loading(2, 2),
                FeatureNormKind.L2,
                null))
        .isEqualTo(train("mapped-l2", null, new TrainSpec.Loading(2, 2), FeatureNormKind.L2, null))
        .isNotEqualTo(mapped);
  }

  @Test
  void withHotReuseTheCacheReadsOnlyThePrunedRowsAndTrainsTheCheckpointOfReuseOverTheMappedStore()
      throws Exception {
    HotReuse reuse = new HotReuse(0.5, 2, HotBy.FREQUENCY);
    TrainSpec.Loading twoTwo = new TrainSpec.Loading(2, 2);
    byte[] mapped = train("reuse-mapped", null, twoTwo, FeatureNormKind.NONE, null, reuse, CPU);
    int window = RowCacheSizing.DEFAULT_WINDOW_BATCHES;
    Object[][] runs = {
      {
        "reuse-belady-t1-k1",
        cache(CachePolicy.BELADY, SMALL, FeatureCacheIo.BUFFERED, window),
        1,
        1
      },
      {"reuse-belady-t3-k4-w1", cache(CachePolicy.BELADY, SMALL, FeatureCacheIo.DIRECT, 1), 3, 4},
      {
        "reuse-belady-sync-auto", cache(CachePolicy.BELADY, SMALL, FeatureCacheIo.BUFFERED, 0), 0, 0
      },
      {"reuse-lru-t2-k2", cache(CachePolicy.LRU, SMALL, FeatureCacheIo.BUFFERED, window), 2, 2},
      {"reuse-none", cache(CachePolicy.NONE, 0, FeatureCacheIo.BUFFERED, window), 3, 1},
    };
    long[] pruned = prunedAccesses(3, reuse);
    long[] full = accesses(3);
    assertThat(pruned[PAPER] + pruned[AUTHOR]).isLessThan(full[PAPER] + full[AUTHOR]);
    for (Object[] run : runs) {
      int threads = (Integer) run[2];
      TrainSpec.Loading loading =
          threads == 0 ? null : new TrainSpec.Loading(threads, (Integer) run[3]);
      TypedCacheSettings c = (TypedCacheSettings) run[1];
      StringBuilder log = new StringBuilder();
      assertThat(train((String) run[0], c, loading, FeatureNormKind.NONE, log, reuse, CPU))
          .as((String) run[0])
          .isEqualTo(mapped);
      // every row the caches read is a row of a pruned bottom hop: the accesses are theirs
      String line = runLine(log, c.policy().id());
      for (int t : new int[] {PAPER, AUTHOR}) {
        long[] hm = hitsAndMisses(line, t == PAPER ? "paper" : "author");
        assertThat(hm[0] + hm[1]).as("%s type %d", run[0], t).isEqualTo(pruned[t]);
      }
    }
    // the checking backend trains the same bits and frees every tensor (it fails its close if not)
    assertThat(
            train(
                "reuse-belady-checked",
                cache(CachePolicy.BELADY, SMALL, FeatureCacheIo.BUFFERED, window),
                twoTwo,
                FeatureNormKind.NONE,
                null,
                reuse,
                BackendKind.CPU_CHECKED))
        .isEqualTo(mapped);
  }

  private static final BackendKind CPU = BackendKind.CPU;

  /** The run's line of the cache of policy {@code policy} in {@code log}. */
  private static String runLine(StringBuilder log, String policy) {
    return log.toString()
        .lines()
        .filter(l -> l.startsWith("feature cache " + policy + " run:"))
        .findFirst()
        .orElseThrow();
  }

  /**
   * As {@link #accesses}, each batch pruned for the hot set a run with {@code reuse} selects: the
   * row accesses of its pruned bottom hop (the batch's own where it has no hot row).
   */
  private static long[] prunedAccesses(int epochs, HotReuse reuse) {
    TypedShardSet set = TypedShardSet.open(shards);
    long[] n = new long[2];
    try (TypedGraphStore g = TypedGraphStore.open(store, false)) {
      TypedHotSet hot =
          TypedHotSet.build(
              TypedEpochs.shards(set, true),
              g,
              config(g, EmbeddingMode.AUTO),
              reuse.fraction(),
              reuse.hotBy());
      assertThat(hot.size()).isPositive();
      for (int e = 0; e < epochs; e++) {
        for (Iterator<TypedMiniBatch> it = set.batches(e % set.epochs(), true); it.hasNext(); ) {
          TypedMiniBatch b = it.next();
          io.fanout.nn.typed.ReusedBottom r = TypedHotPruner.prune(b, hot);
          TypedMiniBatch read = r == null ? b : r.block();
          n[PAPER] += read.nodes(PAPER).length;
          n[AUTHOR] += read.nodes(AUTHOR).length;
        }
      }
    }
    return n;
  }

  /** Training epoch {@code e} reads sampled epoch {@code e mod 2}: its row accesses of type t. */
  private static long[] accesses(int epochs) {
    TypedShardSet set = TypedShardSet.open(shards);
    long[] n = new long[2];
    for (int e = 0; e < epochs; e++) {
      for (Iterator<TypedMiniBatch> it = set.batches(e % set.epochs(), true); it.hasNext(); ) {
        TypedMiniBatch b = it.next();
        n[PAPER] += b.nodes(PAPER).length;
        n[AUTHOR] += b.nodes(AUTHOR).length;
      }
    }
    return n;
  }

  /** The distinct rows of type t the training batches of both sampled epochs touch. */
  private static int distinct(int type) {
    TypedShardSet set = TypedShardSet.open(shards);
    Set<Integer> rows = new HashSet<>();
    for (int e = 0; e < set.epochs(); e++) {
      for (Iterator<TypedMiniBatch> it = set.batches(e, true); it.hasNext(); ) {
        for (int v : it.next().nodes(type)) {
          rows.add(v);
        }
      }
    }
    return rows.size();
  }

  private static long[] hitsAndMisses(String line, String type) {
    Matcher m =
        Pattern.compile(" " + type + " \\d+/\\d+ rows \\(\\d+ bytes\\) hits (\\d+) misses (\\d+);")
            .matcher(line);
    assertThat(m.find()).as(line).isTrue();
    return new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))};
  }

  @Test
  void theLogReportsEachTypesHitsAndMissesOverEveryRowAccess() throws Exception {
    long[] accesses = accesses(3);
    StringBuilder log = new StringBuilder();
    train(
        "log-small",
        cache(CachePolicy.BELADY, SMALL, FeatureCacheIo.BUFFERED, 32),
        new TrainSpec.Loading(2, 2),
        FeatureNormKind.NONE,
        log);
    List<String> lines = log.toString().lines().toList();
    assertThat(lines).anyMatch(l -> l.startsWith("feature cache belady epoch 1: paper "));
    assertThat(lines).anyMatch(l -> l.startsWith("feature cache belady epoch 3: paper "));
    String run =
        lines.stream()
            .filter(l -> l.startsWith("feature cache belady run:"))
            .findFirst()
            .orElseThrow();
    assertThat(run)
        .contains(" paper 4/4 rows (48 bytes) ")
        .contains(" author 3/3 rows (24 bytes) ");
    for (int t : new int[] {PAPER, AUTHOR}) {
      long[] hm = hitsAndMisses(run, t == PAPER ? "paper" : "author");
      assertThat(hm[0] + hm[1]).as("type %d", t).isEqualTo(accesses[t]);
      assertThat(hm[0]).as("hits of type %d", t).isPositive();
      assertThat(hm[1]).as("misses of type %d", t).isGreaterThanOrEqualTo(distinct(t));
    }
    // a budget of every row: each row is read once, every other access is a hit
    StringBuilder all = new StringBuilder();
    train(
        "log-all",
        cache(CachePolicy.BELADY, 432, FeatureCacheIo.BUFFERED, 32),
        new TrainSpec.Loading(3, 1),
        FeatureNormKind.NONE,
        all);
    String whole =
        all.toString()
            .lines()
            .filter(l -> l.startsWith("feature cache belady run:"))
            .findFirst()
            .orElseThrow();
    assertThat(hitsAndMisses(whole, "paper")[1]).isEqualTo(distinct(PAPER));
    assertThat(hitsAndMisses(whole, "author")[1]).isEqualTo(distinct(AUTHOR));
  }

  private static TypedModelConfig config(TypedGraphStore g, EmbeddingMode embeddings) {
    return TypedModelConfig.of(g.schema(), PAPER, TypedModelKind.RGCN, 8, 2, 0.2f, 0, embeddings);
  }

  /**
   * Plans {@code batches} in {@code c} as one window, gathers them one by one, and returns the rows
   * held after each batch (as "r,r,..;" sorted) with the misses at the end; every gathered row must
   * be the store's.
   */
  private static String replay(RowCache c, int type, int[][] batches) {
    int[] counts = new int[batches.length];
    for (int b = 0; b < batches.length; b++) {
      counts[b] = batches[b].length;
    }
    c.plan(batches, counts, batches.length, batches.length);
    StringBuilder held = new StringBuilder();
    int dim = c.dim();
    for (int[] batch : batches) {
      float[] got = new float[batch.length * dim];
      c.gather(batch, 0, batch.length, got, 0);
      float[] want = new float[batch.length * dim];
      G.features(type).gather(batch, 0, batch.length, want, 0);
      assertThat(got).isEqualTo(want);
      List<Integer> rows = new ArrayList<>();
      for (int v = 0; v < c.numVertices(); v++) {
        if (c.holds(v)) {
          rows.add(v);
        }
      }
      held.append(rows.toString().replace(" ", "")).append(';');
    }
    return held + " misses " + c.misses();
  }

  @Test
  void theBudgetIsSplitByFeatureBytesAndEachTypeHoldsWhatBeladyHolds() {
    try (TypedGraphStore g = TypedGraphStore.open(store, false);
        TypedRowCaches belady =
            TypedRowCaches.open(
                g,
                config(g, EmbeddingMode.AUTO),
                cache(CachePolicy.BELADY, SMALL, FeatureCacheIo.BUFFERED, 32));
        TypedRowCaches lru =
            TypedRowCaches.open(
                g,
                config(g, EmbeddingMode.AUTO),
                cache(CachePolicy.LRU, SMALL, FeatureCacheIo.BUFFERED, 32))) {
      // 288 bytes of paper rows, 144 of author rows: 72 bytes split 48 / 24; term is embedded
      assertThat(belady.budget(PAPER)).isEqualTo(48);
      assertThat(belady.budget(AUTHOR)).isEqualTo(24);
      assertThat(belady.cache(PAPER).capacityRows()).isEqualTo(4);
      assertThat(belady.cache(AUTHOR).capacityRows()).isEqualTo(3);
      assertThat(belady.cache(2)).isNull();
      int[][] papers = {{0, 1, 2, 3}, {4}, {0, 1}, {2, 3}, {4, 0}};
      // row 4 is next used after every held row: not admitted (bypass); at the end it is never
      // used again, and neither is any held row but 0, so it is not admitted either
      assertThat(replay(belady.cache(PAPER), PAPER, papers))
          .isEqualTo("[0,1,2,3];[0,1,2,3];[0,1,2,3];[0,1,2,3];[0,1,2,3]; misses 6");
      // LRU evicts the oldest row every time and misses every access after the first batch
      assertThat(replay(lru.cache(PAPER), PAPER, papers))
          .isEqualTo("[0,1,2,3];[1,2,3,4];[0,1,3,4];[0,1,2,3];[0,2,3,4]; misses 11");
      int[][] authors = {{0, 1, 2}, {3}, {0}, {1}, {2}, {3}};
      assertThat(replay(belady.cache(AUTHOR), AUTHOR, authors))
          .isEqualTo("[0,1,2];[0,1,2];[0,1,2];[0,1,2];[0,1,2];[0,1,2]; misses 5");
      assertThat(belady.misses()).isEqualTo(11);
      assertThat(belady.hits()).isEqualTo(5 + 3);
    }
  }

  /** A link model of 3 epochs on {@code graph}, its batches through {@code caches} (null: none). */
  private static float[] trainLink(
      LinkCommunityGraph lg, TypedGraphStore graph, CachePolicy policy, long bytes) {
    TypedLinkTask task = TypedLinkTask.of(graph.schema(), "buys", DecoderKind.DOT);
    TypedModelConfig cfg =
        TypedModelConfig.ofLink(
            graph.schema(),
            task.relation(),
            TypedModelKind.HSAGE,
            8,
            2,
            0.1f,
            0,
            EmbeddingMode.AUTO);
    try (TypedRowCaches caches =
            policy == null
                ? null
                : TypedRowCaches.open(
                    graph, cfg, cache(policy, bytes, FeatureCacheIo.BUFFERED, 3));
        io.fanout.tensor.CpuBackend be = new io.fanout.tensor.CpuBackend();
        io.fanout.nn.typed.TypedModel m = new io.fanout.nn.typed.TypedModel(cfg, be)) {
      TypedEpochs epochs =
          caches == null
              ? lg.linkEpochs(7)
              : TypedCachedStream.through(lg.linkEpochs(7), caches, cfg, 2, null);
      m.init(7);
      try (TypedLinkTrainer t =
          new TypedLinkTrainer(
              m,
              graph,
              task,
              epochs,
              LinkCommunityGraph.FULL,
              new TypedTrainOptions(3, 64, 0.01f, 0f, 7))) {
        t.fit(null, null, null);
      }
      if (caches != null) {
        assertThat(caches.hits() + caches.misses()).isPositive();
      }
      return TypedModelState.of(m);
    }
  }

  @Test
  void linkTrainingReadsItsBatchesRowsThroughTheCacheToTheSameModel() {
    LinkCommunityGraph lg = new LinkCommunityGraph(80, 96, 12, 3);
    Path linkStore = tmp.resolve("link.store");
    TypedStoreFixtures.write(
        linkStore,
        lg.graph,
        new int[][] {{40, 40}, {50, 46}, {12}},
        new int[][][] {null, null, null});
    try (TypedGraphStore g = TypedGraphStore.open(linkStore, true)) {
      float[] mapped = trainLink(lg, g, null, 0);
      // a tenth of the 3392 feature bytes, and every byte
      for (long bytes : new long[] {340, 3392}) {
        assertThat(trainLink(lg, g, CachePolicy.BELADY, bytes))
            .as("belady %d", bytes)
            .isEqualTo(mapped);
      }
      assertThat(trainLink(lg, g, CachePolicy.LRU, 340)).as("lru").isEqualTo(mapped);
    }
  }

  @Test
  void smallTypesAreKeptWholeAndTheRestSplitInProportionExactly() {
    // two types of bytes: an equal share is 50, the 1-byte type fits whole, the other takes 99
    assertThat(TypedRowCaches.split(100, new long[] {300, 0, 1})).containsExactly(99, 0, 1);
    // ... and a type never gets more than its table
    assertThat(TypedRowCaches.split(100, new long[] {3, 0, 1})).containsExactly(3, 0, 1);
    // every table fits: each is whole
    assertThat(TypedRowCaches.split(10, new long[] {1, 1, 1})).containsExactly(1, 1, 1);
    // 10 fits in 90 / 3; 100 does not fit in 80 / 2: 80 split 1 : 2 (26.7, 53.3)
    assertThat(TypedRowCaches.split(90, new long[] {100, 200, 10})).containsExactly(26, 53, 10);
    // no table fits its equal share: in proportion, as the typed store of the tests (72 bytes)
    assertThat(TypedRowCaches.split(72, new long[] {288, 144, 0})).containsExactly(48, 24, 0);
    assertThat(TypedRowCaches.split(0, new long[] {288, 144})).containsExactly(0, 0);
    long big = Long.MAX_VALUE / 4;
    assertThat(TypedRowCaches.split(Long.MAX_VALUE, new long[] {big, big}))
        .containsExactly(big, big);
    assertThat(TypedRowCaches.split(Long.MAX_VALUE / 2, new long[] {big + 1, big + 3}))
        .containsExactly(
            java.math.BigInteger.valueOf(Long.MAX_VALUE / 2)
                .multiply(java.math.BigInteger.valueOf(big + 1))
                .divide(java.math.BigInteger.valueOf(2 * big + 4))
                .longValueExact(),
            java.math.BigInteger.valueOf(Long.MAX_VALUE / 2)
                .multiply(java.math.BigInteger.valueOf(big + 3))
                .divide(java.math.BigInteger.valueOf(2 * big + 4))
                .longValueExact());
    assertThat(TypedRowCaches.split(100, new long[] {0, 0})).containsExactly(0, 0);
  }

  @Test
  void whatCannotBeCachedIsRefusedWithOneLine() {
    TypedCacheSettings small = cache(CachePolicy.BELADY, SMALL, FeatureCacheIo.BUFFERED, 32);
    try (TypedGraphStore g = TypedGraphStore.open(store, false)) {
      assertThatThrownBy(() -> TypedRowCaches.open(g, config(g, EmbeddingMode.ALL), small))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("--feature-cache belady caches stored feature rows")
          .hasMessageContaining("learned embedding")
          .hasMessageNotContaining("\n");
      assertThatThrownBy(
              () ->
                  TypedRowCaches.open(
                      g,
                      config(g, EmbeddingMode.AUTO),
                      cache(CachePolicy.LRU, 11, FeatureCacheIo.BUFFERED, 32)))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("at least one feature row of type 'paper' (12 bytes")
          .hasMessageContaining("got 11")
          .hasMessageNotContaining("\n");
    }
    assertThatThrownBy(
            () ->
                TypedRowCaches.open(
                    G,
                    TypedModelConfig.of(
                        G.schema(), PAPER, TypedModelKind.RGCN, 8, 2, 0.2f, 0, EmbeddingMode.AUTO),
                    small))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("reads the feature files of a typed graph store")
        .hasMessageNotContaining("\n");
  }
}
