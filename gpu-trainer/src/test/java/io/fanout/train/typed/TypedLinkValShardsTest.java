package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureCacheIo;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedStoreFixtures;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.ModelKind;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.sample.TypedNeighborSampler;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.CpuBackend;
import io.fanout.train.CheckpointPick;
import io.fanout.train.FeatureAccessMode;
import io.fanout.train.LinkMetrics;
import io.fanout.train.TrainSpec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Typed link training validated on link {@code --val-shards} (the held-out val pairs of {@link
 * LinkCommunityGraph} cut into batches as {@code sample --task link --split val} cuts them): the
 * validation metrics are the ones {@code evaluate} computes on the same model and pairs (full
 * neighborhoods), {@code best.bin} is the model of the epoch of best validation AUC, the same seed
 * gives the same files byte for byte, and val shards of another kind are refused with one line.
 */
class TypedLinkValShardsTest {
  private static final LinkCommunityGraph G = new LinkCommunityGraph(80, 96, 12, 3);
  private static final long SEED = 7;
  private static final int ITEM = 1;
  private static final int[][] ONE_HOP = {{-1}, {-1}, {-1}, {-1}};
  @TempDir static Path tmp;
  private static Path train;
  private static Path val;

  private static TypedLinkShardFixtures.Kind link(String relation, String split, String store) {
    return new TypedLinkShardFixtures.Kind(
        ITEM, LinkCommunityGraph.FULL, relation, List.of("rev_buys"), split, store);
  }

  @BeforeAll
  static void writeShards() throws Exception {
    train =
        TypedLinkShardFixtures.write(
            tmp.resolve("train"), G.graph, G.linkEpochs(SEED), 2, link("buys", "train", "s1"));
    val =
        TypedLinkShardFixtures.write(
            tmp.resolve("val"),
            G.graph,
            G.valEpochs(LinkCommunityGraph.FULL, SEED, 32),
            1,
            link("buys", "val", "s1"));
  }

  private static void assertSameMetrics(LinkMetrics got, LinkMetrics want, String what) {
    assertThat(got.positives()).as(what).isEqualTo(want.positives());
    assertThat(got.negatives()).as(what).isEqualTo(want.negatives());
    assertThat(got.auc()).as(what).isEqualTo(want.auc());
    assertThat(got.ap()).as(what).isEqualTo(want.ap());
    // a mean over the positives, summed in another order
    assertThat(got.mrr()).as(what).isCloseTo(want.mrr(), within(1e-12));
    assertThat(got.hits10()).as(what).isEqualTo(want.hits10());
    assertThat(got.hits50()).as(what).isEqualTo(want.hits50());
  }

  @Test
  void theValidationOfLinkBatchesScoresWhatEvaluateScores() {
    record Case(TypedModelKind kind, DecoderKind decoder) {}
    for (Case c :
        List.of(
            new Case(TypedModelKind.RGCN, DecoderKind.DOT),
            new Case(TypedModelKind.HSAGE, DecoderKind.DOT),
            new Case(TypedModelKind.HGN, DecoderKind.DOT),
            new Case(TypedModelKind.RGCN, DecoderKind.MLP))) {
      TypedLinkTask task = TypedLinkTask.of(G.graph.schema(), "buys", c.decoder());
      TypedModelConfig cfg =
          TypedModelConfig.ofLink(
              G.graph.schema(), task.relation(), c.kind(), 8, 2, 0.1f, 0, EmbeddingMode.AUTO);
      try (CpuBackend be = new CpuBackend();
          TypedModel m = new TypedModel(cfg, be, c.decoder());
          TypedLinkTrainer t =
              new TypedLinkTrainer(
                  m,
                  G.graph,
                  task,
                  G.linkEpochs(SEED),
                  LinkCommunityGraph.FULL,
                  new TypedTrainOptions(2, 64, 0.01f, 0f, SEED))) {
        m.init(SEED);
        t.validateOn(G.valEpochs(LinkCommunityGraph.FULL, SEED, 32));
        LinkMetrics validated = t.fit(null, null, null).lastVal();
        // what evaluate computes: the held-out pairs with full neighborhoods
        LinkMetrics evaluated =
            TypedLinkEvaluation.metrics(m, G.graph, task, G.val, LinkCommunityGraph.FULL, 64, 3);
        assertSameMetrics(validated, evaluated, c.toString());
        assertThat(validated.positives()).isEqualTo(G.val.positives());
      }
    }
  }

  private static TypedTrainRequest request(Path modelDir, Path valShards, int epochs) {
    return request(G.graph, modelDir, valShards, epochs, null, null);
  }

  /**
   * A 2-hop rgcn link run on {@code g} from the training shards, validated on {@code valShards}.
   */
  private static TypedTrainRequest request(
      TypedGraph g,
      Path modelDir,
      Path valShards,
      int epochs,
      TypedCacheSettings cache,
      FeatureAccessMode access) {
    return TypedTrainRequest.builder(g, train, modelDir)
        .model(ModelKind.RGCN)
        .hidden(8)
        .dropout(0.1f)
        .lr(0.05f)
        .weightDecay(0f)
        .epochs(epochs)
        .seed(SEED)
        .verify(true)
        .valShards(valShards)
        .loading(new TrainSpec.Loading(2, 2))
        .cache(cache)
        .access(access)
        .build();
  }

  private static final Pattern VAL_AUC = Pattern.compile("\"val_auc\":([^,}]+)");

  @Test
  void aRunKeepsTheBestEpochsModelInBestBinAndRepeatsByteForByte() throws Exception {
    int epochs = 2;
    Path md = tmp.resolve("model");
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    TypedTrainRun.Result r =
        TypedTrainRun.train(
            request(md, val, epochs),
            new PrintStream(log, true, StandardCharsets.UTF_8),
            () -> false);
    assertThat(r.lastLinkVal()).isNotNull();
    List<String> lines = Files.readAllLines(md.resolve("metrics.jsonl"));
    assertThat(lines).hasSize(epochs);
    List<Double> auc = new ArrayList<>();
    for (String l : lines) {
      Matcher mt = VAL_AUC.matcher(l);
      assertThat(mt.find()).as(l).isTrue();
      auc.add(Double.parseDouble(mt.group(1)));
    }
    double best = auc.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
    int bestEpoch = auc.indexOf(best) + 1;
    assertThat(r.bestVal()).isEqualTo(best);
    // the fixture's second epoch validates lower than its first, so best.bin is not the last model
    assertThat(bestEpoch).as("val AUC by epoch %s", auc).isLessThan(epochs);
    String progress = log.toString(StandardCharsets.UTF_8);
    for (int e = 1; e <= epochs; e++) {
      assertThat(progress).containsPattern("epoch " + e + " loss \\S+ val auc \\S+ ap \\S+ mrr");
    }
    Map<String, String> meta = TypedCheckpoint.read(md, "best.bin").checkpoint().meta();
    assertThat(meta).containsEntry("best.epoch", Integer.toString(bestEpoch));
    assertThat(Double.parseDouble(meta.get("best.val_auc"))).isEqualTo(best);
    // evaluate --checkpoint best scores the val pairs of best.bin's model at the best epoch's AUC
    TypedLinkTask task = TypedLinkTask.of(G.graph.schema(), "buys");
    try (CpuBackend be = new CpuBackend();
        TypedModel m = TypedModelEvaluation.load(md, CheckpointPick.BEST, G.graph, be)) {
      LinkMetrics ev =
          TypedLinkEvaluation.metrics(m, G.graph, task, G.val, LinkCommunityGraph.FULL, 64, SEED);
      assertThat(ev.auc()).isEqualTo(best);
    }

    // best.bin holds the parameters a run stopped after the best epoch ends with
    Path upToBest = tmp.resolve("up-to-best");
    TypedTrainRun.train(request(upToBest, val, bestEpoch), null, () -> false);
    float[] bestParams = TypedCheckpoint.read(md, "best.bin").checkpoint().params();
    assertThat(bestParams)
        .containsExactly(TypedCheckpoint.read(upToBest, "checkpoint.bin").checkpoint().params());
    assertThat(bestParams)
        .isNotEqualTo(TypedCheckpoint.read(md, "checkpoint.bin").checkpoint().params());

    Path again = tmp.resolve("again");
    TypedTrainRun.train(request(again, val, epochs), null, () -> false);
    for (String f : new String[] {"checkpoint.bin", "best.bin", "metrics.jsonl"}) {
      assertThat(Files.readAllBytes(again.resolve(f)))
          .as(f)
          .isEqualTo(Files.readAllBytes(md.resolve(f)));
    }
  }

  /**
   * On a store of the graph, validation reads the val shards' rows through a feature cache or in
   * place as the training batches' are: the model dir is the host gather's, byte for byte.
   */
  @Test
  void aFeatureCacheAndInPlaceRowsKeepTheModelDir() throws Exception {
    Path store = tmp.resolve("link.store");
    TypedStoreFixtures.write(
        store, G.graph, new int[][] {{40, 40}, {50, 46}, {12}}, new int[][][] {null, null, null});
    Map<String, byte[]> gathered = null;
    try (TypedGraphStore g = TypedGraphStore.open(store, false)) {
      Object[][] runs = {
        {"gather", null, null},
        {
          "belady",
          new TypedCacheSettings(CachePolicy.BELADY, 340, FeatureCacheIo.BUFFERED, 32),
          null
        },
        {"zero-copy", null, FeatureAccessMode.ZERO_COPY}
      };
      for (Object[] run : runs) {
        Path md = tmp.resolve("store-" + run[0]);
        TypedTrainRun.train(
            request(g, md, val, 2, (TypedCacheSettings) run[1], (FeatureAccessMode) run[2]),
            null,
            () -> false);
        Map<String, byte[]> files = new java.util.TreeMap<>();
        for (String f : new String[] {"checkpoint.bin", "best.bin", "metrics.jsonl"}) {
          files.put(f, Files.readAllBytes(md.resolve(f)));
        }
        if (gathered == null) {
          gathered = files;
          assertThat(new String(files.get("metrics.jsonl"), StandardCharsets.UTF_8))
              .contains("\"val_auc\"");
          continue;
        }
        for (String f : files.keySet()) {
          assertThat(files.get(f)).as("%s %s", run[0], f).isEqualTo(gathered.get(f));
        }
      }
    }
  }

  @Test
  void valShardsOfAnotherKindAreRefusedWithOneLine() throws Exception {
    TypedNeighborSampler.Worker w =
        new TypedNeighborSampler(G.graph, ITEM, LinkCommunityGraph.FULL, SEED).newWorker();
    int[] items = new int[32];
    for (int i = 0; i < items.length; i++) {
      items[i] = i;
    }
    TypedEpochs nodeBatches =
        new TypedEpochs() {
          @Override
          public Iterator<TypedMiniBatch> epoch(int epoch) {
            return List.of(w.sample(0, 0, items, 0, 16), w.sample(0, 1, items, 16, 16)).iterator();
          }

          @Override
          public int batches(int epoch) {
            return 2;
          }
        };
    Path node =
        TypedLinkShardFixtures.write(
            tmp.resolve("node-val"),
            G.graph,
            nodeBatches,
            1,
            new TypedLinkShardFixtures.Kind(
                ITEM, LinkCommunityGraph.FULL, null, null, "val", "s1"));
    TypedEpochs heldOut = G.valEpochs(LinkCommunityGraph.FULL, SEED, 32);
    Path otherRelation =
        TypedLinkShardFixtures.write(
            tmp.resolve("other-relation"), G.graph, heldOut, 1, link("has_item", "val", "s1"));
    Path otherStore =
        TypedLinkShardFixtures.write(
            tmp.resolve("other-store"), G.graph, heldOut, 1, link("buys", "val", "s2"));
    Path oneHop =
        TypedLinkShardFixtures.write(
            tmp.resolve("one-hop"),
            G.graph,
            G.valEpochs(ONE_HOP, SEED, 32),
            1,
            new TypedLinkShardFixtures.Kind(
                ITEM, ONE_HOP, "buys", List.of("rev_buys"), "val", "s1"));
    Map<Path, String> refused =
        Map.of(
            node, "hold node batches of seed type 'item'",
            otherRelation, "hold link batches of relation 'has_item'",
            otherStore, "hold link batches of another store (fingerprint s2",
            train, "hold the training edges of 'buys' (split train)",
            oneHop, "hold 1-hop link batches");
    for (Map.Entry<Path, String> e : refused.entrySet()) {
      Path md = tmp.resolve("refused-" + e.getKey().getFileName());
      assertThatThrownBy(() -> TypedTrainRun.train(request(md, e.getKey(), 1), null, () -> false))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("--val-shards " + e.getKey() + " " + e.getValue())
          .hasMessageContaining("the training shards " + train + " hold 2-hop link batches")
          .hasMessageContaining("sample --task link --split val")
          .hasMessageNotContaining("\n");
      assertThat(md.resolve("checkpoint.bin")).doesNotExist();
    }
  }
}
