package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fanout.dist.MeshAllReduce;
import io.fanout.dist.MeshReplicas;
import io.fanout.graph.ArrayTypedGraph;
import io.fanout.nn.DecoderKind;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.typed.SimpleTypedSampler;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.tensor.CpuBackend;
import io.fanout.train.EarlyStop;
import io.fanout.train.EarlyStopChecks;
import io.fanout.train.GradientReducer;
import io.fanout.train.HotBy;
import io.fanout.train.HotReuse;
import io.fanout.train.WorkerShare;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The typed trainers data-parallel over {@link MeshAllReduce} between in-process workers (threads
 * on 127.0.0.1), as {@code DataParallelTrainerTest} runs the one-type trainer: two replicas end
 * with bit-identical parameters and embedding tables, a second run gives the same bits and the same
 * model files, only rank 0 writes the model dir, and a one-worker mesh equals the single-process
 * trainer.
 */
class TypedDataParallelTest {
  @TempDir Path tmp;

  private static final TypedTrainOptions OPTS = new TypedTrainOptions(3, 4, 0.02f, 1e-4f, 5);

  /** Runs {@code replica(mesh, rank)} on {@code workers} ranks of a mesh; each rank's state. */
  private static List<float[]> replicas(int workers, MeshReplicas.Replica<float[]> replica)
      throws Exception {
    return MeshReplicas.run(workers, 11L, 120, replica);
  }

  /** One node-classification replica on {@link io.fanout.nn.typed.TypedTestGraphs#small}. */
  private static float[] nodeReplica(TypedModelKind kind, GradientReducer reducer, Path modelDir) {
    return nodeReplica(kind, reducer, modelDir, HotReuse.OFF);
  }

  /** As {@link #nodeReplica(TypedModelKind, GradientReducer, Path)} with hot reuse. */
  private static float[] nodeReplica(
      TypedModelKind kind, GradientReducer reducer, Path modelDir, HotReuse reuse) {
    return nodeReplica(kind, reducer, modelDir, reuse, OPTS, EarlyStop.OFF);
  }

  /** As {@link #nodeReplica(TypedModelKind, GradientReducer, Path)} with all settings. */
  private static float[] nodeReplica(
      TypedModelKind kind,
      GradientReducer reducer,
      Path modelDir,
      HotReuse reuse,
      TypedTrainOptions opts,
      EarlyStop stop) {
    ArrayTypedGraph g = io.fanout.nn.typed.TypedTestGraphs.small(3);
    TypedModelConfig cfg =
        TypedModelConfig.of(g.schema(), 0, kind, 8, 2, 0.2f, 0, EmbeddingMode.AUTO);
    SimpleTypedSampler s = new SimpleTypedSampler(g, 0, new int[] {4, 3}, 9);
    TypedSampler sampler = s::sample;
    int[] train = TypedEvaluation.seeds(g, 0, io.fanout.store.StoreLayout.SPLIT_TRAIN);
    // 16 training papers in batches of 4: two global steps of 2 x 4 seeds per epoch
    TypedEpochs epochs =
        TypedEpochs.sampled(sampler, train, opts.batchSize(), opts.seed())
            .share(WorkerShare.of(reducer));
    try (TypedModel m = new TypedModel(cfg, new CpuBackend());
        TypedTrainer t = new TypedTrainer(m, g, epochs, sampler, opts, reducer)) {
      t.reuseHot(reuse).stopEarly(stop);
      m.init(opts.seed());
      t.fit(modelDir, null);
      return TypedModelState.of(m);
    }
  }

  /**
   * With hot reuse each replica selects its hot set from its own batches and refreshes its cache
   * from the parameters both hold; the replicas (and their embedding tables, updated over the
   * pruned hops' rows) stay identical and a second run repeats the first.
   */
  @Test
  void twoNodeReplicasWithHotReuseStayIdenticalAndRepeatBitForBit() throws Exception {
    HotReuse reuse = new HotReuse(0.5, 1, HotBy.FREQUENCY);
    List<float[]> a = replicas(2, (r, rank) -> nodeReplica(TypedModelKind.RGCN, r, null, reuse));
    List<float[]> b = replicas(2, (r, rank) -> nodeReplica(TypedModelKind.RGCN, r, null, reuse));
    assertThat(a.get(1)).as("rank 1").containsExactly(a.get(0));
    assertThat(b.get(0)).as("second run").containsExactly(a.get(0));
    List<float[]> off = replicas(2, (r, rank) -> nodeReplica(TypedModelKind.RGCN, r, null));
    assertThat(Arrays.equals(off.get(0), a.get(0))).as("reuse trains another model").isFalse();
  }

  @Test
  void twoNodeReplicasStayIdenticalAndRepeatBitForBit() throws Exception {
    for (TypedModelKind kind : TypedModelKind.values()) {
      Path[] dirs = new Path[2];
      List<List<float[]>> runs = new ArrayList<>();
      for (int run = 0; run < 2; run++) {
        Path dir = tmp.resolve(kind.id() + "-" + run);
        Files.createDirectories(dir);
        dirs[run] = dir;
        runs.add(replicas(2, (r, rank) -> nodeReplica(kind, r, dir)));
      }
      float[] rank0 = runs.get(0).get(0);
      assertThat(runs.get(0).get(1)).as(kind.id() + ": rank 1").containsExactly(rank0);
      assertThat(runs.get(1).get(0)).as(kind.id() + ": second run").containsExactly(rank0);
      float[] single = nodeReplica(kind, GradientReducer.LOCAL, null);
      assertThat(Arrays.equals(single, rank0)).as(kind.id() + ": one process").isFalse();
      for (String f : List.of("checkpoint.bin", "best.bin", "checkpoint.emb-2.bin")) {
        assertThat(Files.readAllBytes(dirs[1].resolve(f)))
            .as(kind.id() + ": " + f)
            .isEqualTo(Files.readAllBytes(dirs[0].resolve(f)));
      }
      // three epochs, one metrics line each: rank 0 alone wrote the model dir
      assertThat(Files.readAllLines(dirs[0].resolve("metrics.jsonl"))).hasSize(3);
    }
  }

  /**
   * With {@code --early-stop} every replica validates and decides for itself from the same scores:
   * both stop after the epoch the metrics say, with the same model.
   */
  @Test
  void twoNodeReplicasStopEarlyAfterTheSameEpoch() throws Exception {
    Path dir = tmp.resolve("early");
    Files.createDirectories(dir);
    TypedTrainOptions opts = new TypedTrainOptions(12, 4, 0.02f, 1e-4f, 5);
    List<float[]> a =
        replicas(
            2,
            (r, rank) ->
                nodeReplica(TypedModelKind.RGCN, r, dir, HotReuse.OFF, opts, new EarlyStop(1)));
    assertThat(a.get(1)).as("rank 1").containsExactly(a.get(0));
    List<JsonNode> lines = EarlyStopChecks.read(dir);
    int stop = EarlyStopChecks.bestAndStop(lines, "val_micro_f1", 1)[1];
    assertThat(stop).as("the run stops before its last epoch").isBetween(1, opts.epochs() - 2);
    assertThat(lines).hasSize(stop + 1);
    assertThat(lines.get(stop).get("stopped_early").asBoolean()).isTrue();
  }

  @Test
  void aOneWorkerMeshEqualsTheSingleProcessTrainer() throws Exception {
    float[] single = nodeReplica(TypedModelKind.RGCN, GradientReducer.LOCAL, null);
    float[] mesh = replicas(1, (r, rank) -> nodeReplica(TypedModelKind.RGCN, r, null)).get(0);
    assertThat(mesh).containsExactly(single);
  }

  private static final LinkCommunityGraph G = new LinkCommunityGraph(80, 96, 12, 3);

  /** One link replica: every type learned ({@code --learned-embeddings all}), MLP decoder. */
  private static float[] linkReplica(GradientReducer reducer) {
    TypedLinkTask task = TypedLinkTask.of(G.graph.schema(), "buys", DecoderKind.MLP);
    TypedModelConfig cfg =
        TypedModelConfig.ofLink(
            G.graph.schema(), task.relation(), TypedModelKind.RGCN, 8, 2, 0f, 0, EmbeddingMode.ALL);
    try (CpuBackend be = new CpuBackend();
        TypedModel m = new TypedModel(cfg, be, DecoderKind.MLP);
        TypedLinkTrainer t =
            new TypedLinkTrainer(
                m,
                G.graph,
                task,
                G.linkEpochs(7).share(WorkerShare.of(reducer)),
                LinkCommunityGraph.FULL,
                new TypedTrainOptions(2, 64, 0.01f, 0f, 7),
                reducer)) {
      m.init(7);
      t.fit(null, G.val, null);
      return TypedModelState.of(m);
    }
  }

  @Test
  void twoLinkReplicasStayIdenticalAndRepeatBitForBit() throws Exception {
    List<float[]> a = replicas(2, (r, rank) -> linkReplica(r));
    List<float[]> b = replicas(2, (r, rank) -> linkReplica(r));
    assertThat(a.get(1)).as("rank 1").containsExactly(a.get(0));
    assertThat(b.get(0)).as("second run").containsExactly(a.get(0));
    assertThat(Arrays.equals(linkReplica(GradientReducer.LOCAL), a.get(0)))
        .as("one process")
        .isFalse();
  }
}
