package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.nn.DecoderKind;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.typed.ReusedBottom;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CheckingBackend;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.FloatTensor;
import io.fanout.train.HotBy;
import io.fanout.train.HotReuse;
import io.fanout.train.ReuseBackward;
import io.fanout.train.ReuseRefresh;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Hot-embedding reuse on typed link batches ({@link TypedLinkTrainer#reuseHot}) on {@link
 * LinkCommunityGraph}: a pruned link step gives the full batch's output rows when the cache holds
 * the batch's own rows at the current parameters; reuse 0 trains the model without reuse bit for
 * bit; reuse is deterministic on both schedules, keeps the staleness bound, and the checking
 * backend trains the CPU's bits and frees every tensor.
 */
class TypedLinkHotReuseTest {
  private static final LinkCommunityGraph G = new LinkCommunityGraph(80, 96, 12, 3);

  private static TypedModelConfig config(TypedModelKind kind, float dropout) {
    TypedLinkTask task = TypedLinkTask.of(G.graph.schema(), "buys", DecoderKind.DOT);
    return TypedModelConfig.ofLink(
        G.graph.schema(), task.relation(), kind, 16, 2, dropout, 0, EmbeddingMode.AUTO);
  }

  /** Trains 2 epochs with {@code reuse} (null: no call); the state and the reuse stats. */
  private static Object[] train(HotReuse reuse, Backend be) {
    TypedLinkTask task = TypedLinkTask.of(G.graph.schema(), "buys", DecoderKind.DOT);
    try (TypedModel m = new TypedModel(config(TypedModelKind.RGCN, 0.2f), be, DecoderKind.DOT);
        TypedLinkTrainer t =
            new TypedLinkTrainer(
                m,
                G.graph,
                task,
                G.linkEpochs(7),
                LinkCommunityGraph.FULL,
                new TypedTrainOptions(2, 64, 0.01f, 0f, 7))) {
      if (reuse != null) {
        t.reuseHot(reuse);
      }
      m.init(7);
      t.fit(null, null, null);
      return new Object[] {TypedModelState.of(m), t.reuseStats()};
    }
  }

  @Test
  void aPrunedLinkStepGivesTheFullBatchsOutputRows() {
    TypedEpochs epochs = G.linkEpochs(7);
    TypedMiniBatch b = epochs.epoch(0).next();
    TypedEpochs only = e -> List.of(b).iterator();
    for (TypedModelKind kind : new TypedModelKind[] {TypedModelKind.RGCN, TypedModelKind.HSAGE}) {
      TypedModelConfig cfg = config(kind, 0f);
      try (TypedModel m = new TypedModel(cfg, new CpuBackend(), DecoderKind.DOT)) {
        m.init(7);
        float[] full = rows(m, m.forwardAll(b, TypedFeatures.gather(G.graph, cfg, b), true, 11));
        TypedHotSet hot = TypedHotSet.build(only, G.graph, cfg, 1.0, HotBy.FREQUENCY);
        ReusedBottom r = TypedHotPruner.prune(b, hot);
        assertThat(r.hotRow()).as(kind.id()).isNotEmpty();
        int n = hot.size() * m.layerOut(0);
        FloatTensor cache = m.backend().allocFloat(n);
        m.backend().copy(m.bottomLayer(hot.block(), hot.features(), true, 11), 0, cache, 0, n);
        float[] pruned =
            rows(
                m,
                m.forwardAll(b, TypedFeatures.gather(G.graph, cfg, r.block()), true, 11, r, cache));
        for (int i = 0; i < full.length; i++) {
          assertThat(Math.abs(pruned[i] - full[i]))
              .as("%s output %d", kind.id(), i)
              .isLessThanOrEqualTo(1e-6f + 1e-5f * Math.abs(full[i]));
        }
        m.backend().free(cache);
      }
    }
  }

  private static float[] rows(TypedModel m, FloatTensor t) {
    float[] out = new float[m.outputRows() * m.config().classes()];
    m.backend().download(t, 0, out, 0, out.length);
    return out;
  }

  @Test
  void reuseZeroIsNoReuseAndReuseIsDeterministicWithinTheBoundOnBothSchedules() {
    float[] plain = (float[]) train(null, new CpuBackend())[0];
    assertThat((float[]) train(new HotReuse(0, 2, HotBy.FREQUENCY), new CpuBackend())[0])
        .containsExactly(plain);
    for (HotReuse reuse :
        new HotReuse[] {
          new HotReuse(0.5, 2, HotBy.FREQUENCY),
          new HotReuse(0.5, 2, HotBy.FREQUENCY, ReuseRefresh.OVERLAPPED, ReuseBackward.DEFERRED)
        }) {
      Object[] a = train(reuse, new CpuBackend());
      float[] state = (float[]) a[0];
      assertThat((float[]) train(reuse, new CpuBackend())[0])
          .as("%s", reuse.toMap())
          .containsExactly(state);
      assertThat(Arrays.equals(state, plain)).as("%s", reuse.toMap()).isFalse();
      Map<?, ?> stats = (Map<?, ?>) a[1];
      assertThat((int) stats.get("hot_vertices")).isPositive();
      assertThat(stats.get("max_embedding_age_steps")).as("%s", reuse.toMap()).isEqualTo(2L);
    }
  }

  @Test
  void theCheckingBackendTrainsTheCpusBitsAndFreesEveryTensor() {
    HotReuse reuse =
        new HotReuse(0.5, 2, HotBy.FREQUENCY, ReuseRefresh.OVERLAPPED, ReuseBackward.DEFERRED);
    float[] cpu = (float[]) train(reuse, new CpuBackend())[0];
    try (CheckingBackend checked = new CheckingBackend(new CpuBackend())) {
      assertThat((float[]) train(reuse, checked)[0]).containsExactly(cpu);
      assertThat(checked.unclosed()).isZero();
    }
  }
}
