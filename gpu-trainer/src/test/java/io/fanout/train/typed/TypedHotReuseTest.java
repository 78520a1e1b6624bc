package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedGraph;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.typed.HgnSettings;
import io.fanout.nn.typed.ReusedBottom;
import io.fanout.nn.typed.SimpleTypedSampler;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.nn.typed.TypedTestGraphs;
import io.fanout.sample.SeedLabels;
import io.fanout.sample.TypedBlocks;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CheckingBackend;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.FloatTensor;
import io.fanout.train.HotBy;
import io.fanout.train.HotReuse;
import io.fanout.train.ReuseBackward;
import io.fanout.train.ReuseRefresh;
import io.fanout.train.ReuseRows;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hot-embedding reuse in typed training: pruning a hand-checked batch, a pruned step equal to the
 * full batch's forward when the cache holds the batch's own rows at the current parameters (up to
 * the rounding of products over fewer rows, the one-type bound), the staleness bound, reuse 0 as
 * training without it, determinism and the refused modes.
 */
class TypedHotReuseTest {
  private static final TypedTrainOptions OPTS = new TypedTrainOptions(3, 4, 0.02f, 1e-4f, 5);

  private static TypedModelConfig config(TypedGraph g, TypedModelKind kind, float dropout) {
    return TypedModelConfig.of(g.schema(), 0, kind, 8, 2, dropout, 0, EmbeddingMode.AUTO);
  }

  private static TypedSampler sampler(TypedGraph g) {
    SimpleTypedSampler s = new SimpleTypedSampler(g, 0, new int[] {4, 3}, 9);
    return s::sample;
  }

  /**
   * Types A (target, 5 vertices) and B (10); relations r0 = B -> A, r1 = A -> B. Seed a0; hop 1: a0
   * <- b5, b7; hop 2 (the bottom): a0 <- b5, b7, b9 and b5 <- a3, b7 <- a4, a3.
   */
  private static final ArrayTypedGraph TINY =
      ArrayTypedGraph.builder()
          .type("A", 5, 2, new float[10], new int[] {0, 1, 0, 1, 0}, new byte[] {1, 1, 1, 1, 1})
          .type("B", 10, 2, new float[20], null, null)
          .relation("r0", "B", "A", new int[] {5}, new int[] {0})
          .relation("r1", "A", "B", new int[] {3}, new int[] {5})
          .build();

  private static TypedMiniBatch tinyBatch() {
    int[][] nodes = {{0, 3, 4}, {5, 7, 9}};
    int[][] sizes = {{1, 1, 3}, {0, 2, 3}};
    int[][][] indptr = {{{0, 2}, {0}}, {{0, 3}, {0, 1, 3}}};
    int[][][] indices = {{{0, 1}, {}}, {{0, 1, 2}, {1, 2, 1}}};
    return new TypedMiniBatch(
        0, 0, 0, new TypedBlocks(nodes, sizes, indptr, indices), SeedLabels.single(new int[] {0}));
  }

  @Test
  void pruningDropsTheHotRowsAndWhatOnlyTheyRead() {
    TypedModelConfig cfg = config(TINY, TypedModelKind.RGCN, 0f);
    // a0 is hot but a seed (never reused), a4 hot but no bottom destination; b7 is the hot row
    TypedHotSet hot = TypedHotSet.ofVertices(cfg, new int[][] {{0, 4}, {7}});
    ReusedBottom r = TypedHotPruner.prune(tinyBatch(), hot);
    TypedMiniBatch p = r.block();
    assertThat(p.layers()).isEqualTo(1);
    // A: computed a0, then a3 (b5's neighbor); a4 only hot b7 read. B: computed b5, then b7 (a0
    // reads it: its input row stays) and b9, in the order a0 read them
    assertThat(p.nodes(0)).containsExactly(0, 3);
    assertThat(p.nodes(1)).containsExactly(5, 7, 9);
    assertThat(p.layerSizes()).isDeepEqualTo(new int[][] {{1, 2}, {1, 3}});
    assertThat(p.indptr(1, 0)).containsExactly(0, 3);
    assertThat(p.indices(1, 0)).containsExactly(0, 1, 2);
    assertThat(p.indptr(1, 1)).containsExactly(0, 1);
    assertThat(p.indices(1, 1)).containsExactly(1);
    // level 1: a0 (row 0), b5 (row 1), b7 (row 2); b7 is B's slot 0, after A's two slots
    assertThat(r.fullRow()).containsExactly(0, 1);
    assertThat(r.hotRow()).containsExactly(2);
    assertThat(r.hotSlot()).containsExactly(2);
    assertThat(
            TypedHotPruner.prune(tinyBatch(), TypedHotSet.ofVertices(cfg, new int[][] {{0}, {}})))
        .as("no hot row")
        .isNull();
  }

  @Test
  void theLoaderPrunesEachBatchOnceAndGathersThePrunedHopsRows() {
    ArrayTypedGraph g = TypedTestGraphs.small(3);
    TypedModelConfig cfg = config(g, TypedModelKind.RGCN, 0f);
    TypedSampler s = sampler(g);
    TypedEpochs epochs =
        e ->
            List.of(s.sample(e, 0, new int[] {0, 1, 2}), s.sample(e, 1, new int[] {3, 4}))
                .iterator();
    TypedHotSet hot = TypedHotSet.build(epochs, g, cfg, 0.5, HotBy.FREQUENCY);
    try (TypedModel model = new TypedModel(cfg, new CpuBackend())) {
      TypedEpochLoop loop = new TypedEpochLoop(epochs, g, model);
      loop.pruneFor(hot);
      int[] seen = new int[2]; // batches, batches with hot rows
      loop.meanLoss(
          1,
          in -> {
            ReusedBottom once = TypedHotPruner.prune(in.batch(), hot);
            assertThat(in.prunedFor).isSameAs(hot);
            assertThat(in.reused == null).isEqualTo(once == null);
            TypedMiniBatch inputs = in.batch();
            if (once != null) {
              seen[1]++;
              assertThat(in.reused.block().nodes(0)).containsExactly(once.block().nodes(0));
              assertThat(in.reused.block().nodes(1)).containsExactly(once.block().nodes(1));
              assertThat(in.reused.hotRow()).containsExactly(once.hotRow());
              assertThat(in.reused.hotSlot()).containsExactly(once.hotSlot());
              inputs = once.block();
            }
            assertThat(in.features()).isDeepEqualTo(TypedFeatures.gather(g, cfg, inputs));
            seen[0]++;
            return new TypedTrainer.StepResult(0, 1);
          });
      assertThat(seen[0]).isEqualTo(2);
      assertThat(seen[1]).isPositive();
    }
  }

  /** Epoch 0 is {@code b} alone. */
  private static TypedEpochs only(TypedMiniBatch b) {
    return e -> List.of(b).iterator();
  }

  @Test
  void aPrunedStepOnTheBatchsOwnRowsGivesTheFullBatchsLogits() {
    ArrayTypedGraph g = TypedTestGraphs.small(3);
    TypedMiniBatch b = sampler(g).sample(0, 0, new int[] {0, 1, 2, 3, 4, 5});
    for (TypedModelKind kind : TypedModelKind.values()) {
      HgnSettings h = HgnSettings.DEFAULT; // no attention dropout: its masks follow edge positions
      TypedModelConfig cfg =
          config(g, kind, 0f).withHgn(new HgnSettings(h.heads(), h.slope(), 0f, h.relationDim()));
      try (TypedModel m = new TypedModel(cfg, new CpuBackend())) {
        m.init(7);
        float[] full = logits(m, m.forward(b, TypedFeatures.gather(g, cfg, b), true, 11));
        TypedHotSet hot = TypedHotSet.build(only(b), g, cfg, 1.0, HotBy.FREQUENCY);
        assertThat(hot.size()).as(kind.id()).isPositive();
        ReusedBottom r = TypedHotPruner.prune(b, hot);
        assertThat(r.hotRow()).as(kind.id()).isNotEmpty();
        FloatTensor out = m.bottomLayer(hot.block(), hot.features(), true, 11);
        FloatTensor cache = m.backend().allocFloat(hot.size() * m.layerOut(0));
        m.backend().copy(out, 0, cache, 0, hot.size() * m.layerOut(0));
        float[] pruned =
            logits(m, m.forward(b, TypedFeatures.gather(g, cfg, r.block()), true, 11, r, cache));
        for (int i = 0; i < full.length; i++) { // up to the products' rounding, as one-type
          assertThat(Math.abs(pruned[i] - full[i]))
              .as("%s logit %d", kind.id(), i)
              .isLessThanOrEqualTo(1e-6f + 1e-5f * Math.abs(full[i]));
        }
        // the cached rows are constants: layer 0 gets the computed rows' gradient only
        float[] d = new float[full.length];
        Arrays.fill(d, 0.1f);
        m.zeroGrad();
        m.backward(d);
        float[] prunedGrads = m.grads();
        m.forward(b, TypedFeatures.gather(g, cfg, b), true, 11);
        m.zeroGrad();
        m.backward(d);
        assertThat(Arrays.equals(prunedGrads, m.grads())).as(kind.id()).isFalse();
        m.backend().free(cache);
      }
    }
  }

  /**
   * The identity the deferred backward rests on: with the hot block holding the batch's own
   * neighborhoods and rows of the current parameters (no dropout), a pruned step's dense gradient
   * plus the deferred one (the reused rows' output gradients, summed by slot, taken back through
   * layer 0 over the hot block on a {@link TypedModel#bottomLayerCopy}) is the full batch's, for
   * every dense parameter, up to the rounding of sums in another order.
   */
  @Test
  void aPrunedStepsGradientPlusTheDeferredOneIsTheFullBatchs() {
    ArrayTypedGraph g = TypedTestGraphs.small(3);
    TypedMiniBatch b = sampler(g).sample(0, 0, new int[] {0, 1, 2, 3, 4, 5});
    for (TypedModelKind kind : TypedModelKind.values()) {
      HgnSettings h = HgnSettings.DEFAULT;
      TypedModelConfig cfg =
          config(g, kind, 0f).withHgn(new HgnSettings(h.heads(), h.slope(), 0f, h.relationDim()));
      Backend be = new CpuBackend();
      try (TypedModel m = new TypedModel(cfg, be);
          TypedModel copy = TypedModel.bottomLayerCopy(cfg, be)) {
        m.init(7);
        float[] full = logits(m, m.forward(b, TypedFeatures.gather(g, cfg, b), true, 11));
        float[] d = new float[full.length];
        for (int i = 0; i < d.length; i++) {
          d[i] = 0.05f * ((i * 7) % 5 - 2);
        }
        m.zeroGrad();
        m.backward(d);
        float[] fullGrads = m.grads();
        TypedHotSet hot = TypedHotSet.build(only(b), g, cfg, 1.0, HotBy.FREQUENCY);
        ReusedBottom r = TypedHotPruner.prune(b, hot);
        int w = m.layerOut(0);
        FloatTensor cache = be.allocFloat(hot.size() * w);
        be.copy(m.bottomLayer(hot.block(), hot.features(), true, 11), 0, cache, 0, hot.size() * w);
        m.keepReusedGradients(true);
        m.forward(b, TypedFeatures.gather(g, cfg, r.block()), true, 11, r, cache);
        m.zeroGrad();
        m.backward(d);
        float[] stepGrads = m.grads();
        float[] rows = m.reusedRowGradients();
        float[] sum = new float[hot.size() * w];
        for (int j = 0; j < r.hotSlot().length; j++) {
          for (int c = 0; c < w; c++) {
            sum[r.hotSlot()[j] * w + c] += rows[j * w + c];
          }
        }
        float[][] inputs = hot.features().clone();
        int[] terms = hot.block().nodes(2);
        inputs[2] = new float[terms.length * cfg.inputWidth()];
        m.embeddings(2).gather(terms, 0, terms.length, inputs[2], 0);
        copy.loadParams(m.params());
        copy.zeroGrad();
        copy.bottomLayer(hot.block(), inputs, true, 11);
        FloatTensor dOut = be.allocFloat(sum.length);
        be.upload(sum, 0, dOut, 0, sum.length);
        copy.bottomLayerBackward(dOut);
        float[] deferred = copy.grads();
        double scale = 0;
        for (float x : fullGrads) {
          scale = Math.max(scale, Math.abs(x));
        }
        assertThat(scale).as(kind.id()).isPositive();
        boolean differs = false;
        for (int i = 0; i < fullGrads.length; i++) {
          assertThat((double) Math.abs(stepGrads[i] + deferred[i] - fullGrads[i]))
              .as("%s parameter %d", kind.id(), i)
              .isLessThanOrEqualTo(1e-6 * scale + 1e-5 * Math.abs(fullGrads[i]));
          differs |= Math.abs(stepGrads[i] - fullGrads[i]) > 1e-3 * scale;
        }
        assertThat(differs).as("%s: the reused rows' share is not nothing", kind.id()).isTrue();
        be.free(cache);
        be.free(dOut);
      }
    }
  }

  private static float[] logits(TypedModel m, FloatTensor t) {
    float[] out = new float[m.outputRows() * m.config().classes()];
    m.backend().download(t, 0, out, 0, out.length);
    return out;
  }

  /** Trains {@code OPTS} with {@code reuse} (null: no call); the state and the reuse stats. */
  private static Object[] train(HotReuse reuse, TypedModelKind kind) {
    return train(reuse, kind, new CpuBackend());
  }

  private static Object[] train(HotReuse reuse, TypedModelKind kind, Backend be) {
    ArrayTypedGraph g = TypedTestGraphs.small(3);
    try (TypedModel m = new TypedModel(config(g, kind, 0.2f), be);
        TypedTrainer t = new TypedTrainer(m, g, sampler(g), OPTS)) {
      if (reuse != null) {
        t.reuseHot(reuse);
      }
      m.init(OPTS.seed());
      t.fit(null, null);
      return new Object[] {TypedModelState.of(m), t.reuseStats()};
    }
  }

  private static HotReuse reuse(double fraction, int staleness) {
    return new HotReuse(fraction, staleness, HotBy.FREQUENCY);
  }

  @Test
  void noStepReadsACacheOlderThanTheStaleness() {
    int steps = OPTS.epochs() * 4; // 16 training papers in batches of 4
    for (int s = 1; s <= 4; s++) {
      Map<?, ?> stats = (Map<?, ?>) train(reuse(0.5, s), TypedModelKind.RGCN)[1];
      assertThat(stats.get("max_embedding_age_steps")).as("staleness %d", s).isEqualTo((long) s);
      assertThat(stats.get("refreshes"))
          .as("staleness %d", s)
          .isEqualTo((steps + s) / (s + 1)); // steps 0, S+1, 2(S+1), ...
    }
  }

  private static HotReuse overlapped(double fraction, int staleness) {
    return new HotReuse(fraction, staleness, HotBy.FREQUENCY, ReuseRefresh.OVERLAPPED);
  }

  @Test
  void overlappedRefreshesKeepTheStalenessBound() {
    int steps = OPTS.epochs() * 4;
    for (int s = 1; s <= 4; s++) {
      HotReuse r = overlapped(0.5, s);
      Map<?, ?> stats = (Map<?, ?>) train(r, TypedModelKind.RGCN)[1];
      assertThat(stats.get("reuse_refresh")).isEqualTo("overlapped");
      assertThat(stats.get("max_embedding_age_steps")).as("staleness %d", s).isEqualTo((long) s);
      assertThat(stats.get("refreshes")) // step 0's, then one every period from step P on
          .as("staleness %d", s)
          .isEqualTo(1 + (steps - 1) / r.period(false));
    }
  }

  /**
   * On the one-type schedule, step {@code t} reads the refresh of step {@code P floor((t - lag) /
   * P)} (step 0's before {@code lag}), and that refresh is the inline one of that step's parameters
   * and dropout key, bit for bit, embedded types' rows included.
   */
  @Test
  void anOverlappedRefreshIsTheInlineOneOfItsStepsParametersLandingLagStepsLater() {
    ArrayTypedGraph g = TypedTestGraphs.small(3);
    TypedMiniBatch b = sampler(g).sample(0, 0, new int[] {0, 1, 2, 3, 4, 5});
    for (TypedModelKind kind : TypedModelKind.values()) {
      TypedModelConfig cfg = config(g, kind, 0.2f);
      assertThat(cfg.type(2).embedded()).as("term reads an embedding table").isTrue();
      try (TypedModel m = new TypedModel(cfg, new CpuBackend())) {
        m.init(7);
        TypedHotSet hot = TypedHotSet.build(only(b), g, cfg, 1.0, HotBy.FREQUENCY);
        HotReuse r = overlapped(1.0, 3);
        int lag = r.lag(false);
        int period = r.period(false);
        int steps = 12;
        float[][] paramsAt = new float[steps][];
        try (TypedHotRefresh over = new TypedHotRefresh(m, hot, r, 5)) {
          assertThat(over.inline()).isFalse();
          assertThat(over.lag()).isEqualTo(2);
          assertThat(over.period()).isEqualTo(2);
          for (int t = 0; t < steps; t++) {
            float[] p = m.params();
            for (int i = 0; i < p.length; i++) {
              p[i] += 0.01f * ((t * 31 + i) % 7 - 3); // the "update" of step t
            }
            m.loadParams(p);
            paramsAt[t] = p;
            float[] cache = rows(m, over.beforeStep(t), hot.size());
            long v = t < lag ? 0 : (long) period * ((t - lag) / period);
            assertThat(over.takenAt()).as("%s step %d", kind.id(), t).isEqualTo(v);
            m.loadParams(paramsAt[(int) v]);
            try (TypedHotRefresh inline = new TypedHotRefresh(m, hot, reuse(1.0, 3), 5)) {
              assertThat(rows(m, inline.beforeStep(v), hot.size()))
                  .as("%s step %d", kind.id(), t)
                  .containsExactly(cache);
            }
            m.loadParams(p);
          }
          assertThat(over.maxAge()).isEqualTo(3);
          assertThat(over.refreshes()).isEqualTo(1 + (steps - 1) / period);
        }
      }
    }
  }

  private static float[] rows(TypedModel m, FloatTensor cache, int hot) {
    float[] out = new float[hot * m.layerOut(0)];
    m.backend().download(cache, 0, out, 0, out.length);
    return out;
  }

  @Test
  void reuseZeroTrainsTheModelWithoutReuseAndReuseIsDeterministic() {
    for (TypedModelKind kind : TypedModelKind.values()) {
      float[] plain = (float[]) train(null, kind)[0];
      assertThat((float[]) train(reuse(0, 2), kind)[0]).as(kind.id()).containsExactly(plain);
      float[] a = (float[]) train(reuse(0.5, 2), kind)[0];
      assertThat((float[]) train(reuse(0.5, 2), kind)[0]).as(kind.id()).containsExactly(a);
      assertThat(Arrays.equals(a, plain)).as(kind.id() + ": reuse trains another model").isFalse();
      assertThat((float[]) train(overlapped(0, 2), kind)[0]).as(kind.id()).containsExactly(plain);
      float[] o = (float[]) train(overlapped(0.5, 2), kind)[0];
      assertThat((float[]) train(overlapped(0.5, 2), kind)[0]).as(kind.id()).containsExactly(o);
      assertThat(Arrays.equals(o, a)).as(kind.id() + ": another schedule").isFalse();
    }
  }

  @Test
  void theCheckpointRecordsReuseAndAResumeWithoutItIsRefused(@TempDir Path dir) {
    ArrayTypedGraph g = TypedTestGraphs.small(3);
    Path md = dir.resolve("model");
    TypedTrainOptions two = new TypedTrainOptions(2, 4, 0.02f, 1e-4f, 5);
    try (TypedModel m = new TypedModel(config(g, TypedModelKind.RGCN, 0.2f), new CpuBackend());
        TypedTrainer t = new TypedTrainer(m, g, sampler(g), two)) {
      t.reuseHot(reuse(0.5, 2));
      m.init(two.seed());
      t.fit(md, null);
    }
    try (TypedModel m = new TypedModel(config(g, TypedModelKind.RGCN, 0.2f), new CpuBackend());
        TypedTrainer t = new TypedTrainer(m, g, sampler(g), OPTS)) {
      m.init(OPTS.seed());
      assertThatThrownBy(() -> t.fit(md, null))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("trained with reuse_hot=0.5, this run has none");
    }
    try (TypedModel m = new TypedModel(config(g, TypedModelKind.RGCN, 0.2f), new CpuBackend());
        TypedTrainer t = new TypedTrainer(m, g, sampler(g), OPTS)) {
      t.reuseHot(reuse(0.5, 3));
      m.init(OPTS.seed());
      assertThatThrownBy(() -> t.fit(md, null)).hasMessageContaining("staleness=2");
    }
    try (TypedModel m = new TypedModel(config(g, TypedModelKind.RGCN, 0.2f), new CpuBackend());
        TypedTrainer t = new TypedTrainer(m, g, sampler(g), OPTS)) {
      t.reuseHot(reuse(0.5, 2));
      m.init(OPTS.seed());
      assertThat(t.fit(md, null).epochsRun()).isEqualTo(1);
    }
  }

  private static HotReuse deferred(ReuseRefresh refresh) {
    return new HotReuse(0.5, 2, HotBy.FREQUENCY, refresh, ReuseBackward.DEFERRED);
  }

  /**
   * The schedule of the deferred gradient: the reused rows' gradients of the steps that read
   * refresh 0 come back as layer 0's gradient of them through refresh 0's computation (its
   * parameters, rows and dropout key), a period-th at each step that reads the refresh landing with
   * it: inline refresh 1's readers (steps {@code P..2P-1}), overlapped refresh 2's ({@code 2P +
   * lag..3P + lag - 1}); every other step adds nothing here.
   */
  @Test
  void theDeferredGradientOfARefreshsReadersLandsOnTheOneTypeSchedule() {
    ArrayTypedGraph g = TypedTestGraphs.small(3);
    TypedMiniBatch b = sampler(g).sample(0, 0, new int[] {0, 1, 2, 3, 4, 5});
    TypedModelConfig cfg = config(g, TypedModelKind.HSAGE, 0.2f);
    for (ReuseRefresh mode : new ReuseRefresh[] {ReuseRefresh.INLINE, ReuseRefresh.OVERLAPPED}) {
      HotReuse r = new HotReuse(1.0, 3, HotBy.FREQUENCY, mode, ReuseBackward.DEFERRED);
      boolean inline = mode == ReuseRefresh.INLINE;
      int lag = r.lag(inline);
      int period = r.period(inline);
      Backend be = new CpuBackend();
      try (TypedModel m = new TypedModel(cfg, be);
          TypedModel copy = TypedModel.bottomLayerCopy(cfg, be)) {
        m.init(7);
        TypedHotSet hot = TypedHotSet.build(only(b), g, cfg, 1.0, HotBy.FREQUENCY);
        int w = m.layerOut(0);
        float[] ones = new float[w];
        Arrays.fill(ones, 0.5f);
        // what the readers of refresh 0 hand back: slot 0's row, once a step
        float[] sum = new float[hot.size() * w];
        int readers = period + lag;
        for (int c = 0; c < w; c++) {
          sum[c] = 0.5f * readers;
        }
        float[][] inputs = hot.features().clone();
        int[] terms = hot.block().nodes(2);
        inputs[2] = new float[terms.length * cfg.inputWidth()];
        m.embeddings(2).gather(terms, 0, terms.length, inputs[2], 0);
        copy.loadParams(m.params());
        copy.zeroGrad();
        copy.bottomLayer(hot.block(), inputs, true, TypedHotRefresh.dropoutKey(5, 0));
        FloatTensor dOut = be.allocFloat(sum.length);
        be.upload(sum, 0, dOut, 0, sum.length);
        copy.bottomLayerBackward(dOut);
        float[] expected = copy.grads();
        for (int i = 0; i < expected.length; i++) {
          expected[i] *= 1f / period;
        }
        float norm = 0;
        for (float x : expected) {
          norm += Math.abs(x);
        }
        assertThat(norm).as("layer 0 gets a gradient").isPositive();
        int first = inline ? period : 2 * period + lag;
        FloatTensor grads = be.allocFloat(m.numParams());
        try (TypedHotRefresh refresh = new TypedHotRefresh(m, hot, r, 5)) {
          for (int t = 0; t < first + period + 2; t++) {
            refresh.beforeStep(t);
            if (t < readers) {
              refresh.addReusedGradients(new int[] {0}, ones);
            }
            be.zero(grads, 0, m.numParams());
            refresh.addDeferredGradient(grads);
            float[] got = new float[m.numParams()];
            be.download(grads, 0, got, 0, got.length);
            if (t >= first && t < first + period) {
              assertThat(got).as("%s step %d", mode.id(), t).containsExactly(expected);
            } else {
              for (float x : got) {
                assertThat(x).as("%s step %d", mode.id(), t).isZero();
              }
            }
          }
        }
        be.free(grads);
        be.free(dOut);
      }
    }
  }

  @Test
  void theDeferredBackwardTrainsAnotherModelDeterministicallyOnBothSchedules() {
    for (TypedModelKind kind : TypedModelKind.values()) {
      for (ReuseRefresh refresh :
          new ReuseRefresh[] {ReuseRefresh.INLINE, ReuseRefresh.OVERLAPPED}) {
        HotReuse none = new HotReuse(0.5, 2, HotBy.FREQUENCY, refresh);
        float[] dropped = (float[]) train(none, kind)[0];
        float[] a = (float[]) train(deferred(refresh), kind)[0];
        assertThat((float[]) train(deferred(refresh), kind)[0])
            .as("%s %s", kind.id(), refresh.id())
            .containsExactly(a);
        assertThat(Arrays.equals(a, dropped))
            .as("%s %s: the deferred gradient reaches layer 0", kind.id(), refresh.id())
            .isFalse();
      }
    }
  }

  @Test
  void theCheckingBackendTrainsTheCpusBitsWithReuseAndFreesEveryTensor() {
    for (HotReuse r :
        new HotReuse[] {
          reuse(0.5, 2),
          overlapped(0.5, 2),
          deferred(ReuseRefresh.INLINE),
          deferred(ReuseRefresh.OVERLAPPED)
        }) {
      float[] cpu = (float[]) train(r, TypedModelKind.RGCN)[0];
      try (CheckingBackend checked = new CheckingBackend(new CpuBackend())) {
        assertThat((float[]) train(r, TypedModelKind.RGCN, checked)[0])
            .as(r.refresh().id())
            .containsExactly(cpu);
        assertThat(checked.unclosed()).isZero();
      }
    }
    assertThat(
            Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("fanout-typed-hot-refresh")))
        .as("no refresh worker outlives its trainer")
        .isFalse();
  }

  @Test
  void inDegreeRanksEachTypeByItsInDegree() {
    ArrayTypedGraph g = TypedTestGraphs.small(3);
    TypedModelConfig cfg = config(g, TypedModelKind.RGCN, 0f);
    TypedMiniBatch b = sampler(g).sample(0, 0, new int[] {0, 1, 2, 3, 4, 5});
    TypedHotSet hot = TypedHotSet.build(only(b), g, cfg, 0.25, HotBy.IN_DEGREE);
    for (int t = 0; t < cfg.numTypes(); t++) {
      long count = cfg.type(t).count();
      assertThat((long) hot.size(t)).as("type %d", t).isLessThanOrEqualTo(Math.round(0.25 * count));
    }
    assertThat(TypedHotSet.rank(new int[] {0, 3, 1, 1, 5}, new long[] {9, 2, 7, 7, 1}, 0.6))
        .as("candidates by degree, ties by id; 9 is no candidate")
        .containsExactly(2, 3, 1);
    assertThat(TypedHotSet.rank(new int[] {0, 3, 1, 1, 5}, null, 0.6)).containsExactly(4, 1, 2);
  }

  @Test
  void theModesNotBuiltAreRefusedInOneLine() {
    ArrayTypedGraph g = TypedTestGraphs.small(3);
    TypedModelConfig cfg = config(g, TypedModelKind.RGCN, 0f);
    TypedHotReuse.check(new HotReuse(0.5, 2, HotBy.FREQUENCY, ReuseRefresh.OVERLAPPED), cfg);
    TypedHotReuse.check(
        new HotReuse(0.5, 2, HotBy.FREQUENCY, ReuseRefresh.INLINE, ReuseBackward.DEFERRED), cfg);
    assertThatThrownBy(
            () ->
                TypedHotReuse.check(
                    new HotReuse(
                        0.5,
                        2,
                        HotBy.FREQUENCY,
                        ReuseRefresh.AUTO,
                        ReuseBackward.NONE,
                        ReuseRows.INPUTS),
                    cfg))
        .isInstanceOf(FanoutConfigException.class)
        .hasMessage(
            "train --reuse-rows inputs is not built for typed stores; use outputs (or auto)");
    TypedHotReuse.check(new HotReuse(0, 2, HotBy.FREQUENCY, ReuseRefresh.OVERLAPPED), cfg);
    Map<String, String> identity = new java.util.LinkedHashMap<>();
    TypedHotReuse.addIdentity(deferred(ReuseRefresh.OVERLAPPED), identity);
    assertThat(identity)
        .containsEntry("identity.reuse_refresh", "overlapped")
        .containsEntry("identity.reuse_backward", "deferred");
    identity.clear();
    TypedHotReuse.addIdentity(reuse(0.5, 2), identity);
    assertThat(identity)
        .containsEntry("identity.reuse_refresh", "inline")
        .doesNotContainKey("identity.reuse_backward");
  }
}
