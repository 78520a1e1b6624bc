package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.nn.BatchTensors;
import io.fanout.nn.Block;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.GnnModel;
import io.fanout.nn.ModelConfig;
import io.fanout.nn.ModelKind;
import io.fanout.nn.ReusedGradients;
import io.fanout.nn.ReusedRows;
import io.fanout.sample.MiniBatch;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CounterRng;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.FloatTensor;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HotReuseTest {
  @TempDir Path tmp;

  @BeforeAll
  static void load() {
    TrainerTest.load();
  }

  /**
   * 2 seeds (ids 10, 11), hop-1 nodes 12..14, hop-2 nodes 15..18. Bottom block rows: seed 0 reads
   * sources 5, 6; seed 1 reads 2; row 2 (id 12) reads 5, 7; row 3 (id 13) reads 7, 8; row 4 (id 14)
   * reads 1, 6.
   */
  static MiniBatch batch() {
    int[] nodes = {10, 11, 12, 13, 14, 15, 16, 17, 18};
    int[] sizes = {2, 5, 9};
    int[][] ptr = {{0, 2, 3}, {0, 2, 3, 5, 7, 9}};
    int[][] idx = {{2, 3, 4}, {5, 6, 2, 5, 7, 7, 8, 1, 6}};
    return new MiniBatch(0, 0, nodes, sizes, ptr, idx, new int[] {0, 1});
  }

  /** GraphSAGE over {@link #batch()}'s 2 features: 2 layers, hidden 3, 2 classes, no dropout. */
  static final ModelConfig SMALL_SAGE = new ModelConfig("sage", 2, 3, 2, 2, 0f, "elu", "none");

  /** Features of {@link #batch()}'s 9 nodes, 2 each, uniform in [-1, 1) from {@code key}. */
  static float[] features(long key) {
    float[] x = new float[18];
    for (int i = 0; i < x.length; i++) {
      x[i] = 2f * CounterRng.uniform(key, i) - 1f;
    }
    return x;
  }

  /** The hot ids 12 and 13 (batch rows 2, 3) in slots 0 and 1, indexed by vertex id. */
  static int[] slotsOf12And13() {
    int[] slotOf = new int[20];
    Arrays.fill(slotOf, -1);
    slotOf[12] = 0;
    slotOf[13] = 1;
    return slotOf;
  }

  /** {@link #batch()} pruned for {@link #slotsOf12And13}. */
  static HotPruner prunedFor12And13() {
    HotPruner p = new HotPruner();
    assertThat(p.prune(batch(), slotsOf12And13())).isTrue();
    return p;
  }

  /**
   * Uploads to {@code worker} the hot block of ids 12 and 13 reading 15, 17 and 17, 18 as in {@link
   * #batch()}, with their input rows taken from the batch's features {@code x}.
   */
  static void uploadHotBlock(GnnModel worker, float[] x) {
    Block hot = new Block(new int[] {0, 2, 4}, new int[] {2, 3, 3, 4}, 2, 5);
    float[] hotX = new float[10];
    int[] rowOfHotSource = {2, 3, 5, 7, 8};
    for (int k = 0; k < 5; k++) {
      System.arraycopy(x, 2 * rowOfHotSource[k], hotX, 2 * k, 2);
    }
    worker.uploadLayerInput(0, hot, hotX);
  }

  @Test
  void prunesTheCachedRowsSubtreesButNeverASeedsRow() {
    MiniBatch mb = batch();
    float[] x = new float[9 * 2];
    for (int i = 0; i < 9; i++) {
      x[2 * i] = i;
      x[2 * i + 1] = -i;
    }
    int[] slotOf = new int[20];
    Arrays.fill(slotOf, -1);
    slotOf[10] = 0; // a seed: stays computed
    slotOf[13] = 1;
    HotPruner p = new HotPruner();
    assertThat(p.prune(mb, slotOf)).isTrue();
    Block[] b = p.blocks();

    // Rows 0, 1, 2, 4 are computed: they are the pruned block's destinations and first sources.
    // Then come the sources they read, in the order first read (5, 6, 7); row 3 (id 13, hot, read
    // by nobody) and
    // source 8 (id 18, read only by row 3) are gone.
    assertThat(b[0].numDst()).isEqualTo(4);
    assertThat(b[0].numSrc()).isEqualTo(7);
    assertThat(Arrays.copyOf(b[0].indptr(), 5)).containsExactly(0, 2, 3, 5, 7);
    assertThat(Arrays.copyOf(b[0].indices(), 7)).containsExactly(4, 5, 2, 4, 6, 1, 5);
    assertThat(Arrays.copyOf(p.keptNodes(), 7)).containsExactly(10, 11, 12, 14, 15, 16, 17);
    assertThat(Arrays.copyOf(p.compact(x, 2, null), 14))
        .containsExactly(0, 0, 1, -1, 2, -2, 4, -4, 5, -5, 6, -6, 7, -7);
    assertThat(b[1]).isEqualTo(Block.of(mb)[1]);
    assertThat(p.rowsAvoided).isEqualTo(1);
    assertThat(p.edgesAvoided).isEqualTo(2);
    assertThat(p.sourcesAvoided).isEqualTo(2);
    ReusedRows r = new ReusedRows();
    p.describe(r, new CpuBackend().wrap(new float[0]));
    assertThat(r.count()).isEqualTo(1);

    // With row 2 (id 12) hot too, seed 1 still reads it as a neighbor: its row stays a source,
    // after the computed rows 0, 1, 4 and the sources row 0 reads first (ids 15, 16: sources come
    // in the order the computed rows first read them); source 7 (id 17) goes.
    slotOf[12] = 2;
    assertThat(p.prune(batch(), slotOf)).isTrue();
    Block[] c = p.blocks();
    assertThat(c[0].numDst()).isEqualTo(3);
    assertThat(c[0].numSrc()).isEqualTo(6);
    assertThat(Arrays.copyOf(c[0].indptr(), 4)).containsExactly(0, 2, 3, 5);
    assertThat(Arrays.copyOf(c[0].indices(), 5)).containsExactly(3, 4, 5, 1, 4);
    assertThat(Arrays.copyOf(p.keptNodes(), 6)).containsExactly(10, 11, 14, 15, 16, 12);
    assertThat(p.sourcesAvoided).isEqualTo(3);
    assertThat(p.edgesAvoided).isEqualTo(4);

    // No hot row: the batch as sampled.
    Arrays.fill(slotOf, -1);
    slotOf[11] = 0;
    assertThat(p.prune(batch(), slotOf)).isFalse();
    assertThat(p.active()).isFalse();
  }

  /** Loss of a training forward with {@code reused}, on host arrays. */
  private static double loss(GnnModel m, Block[] b, float[] x, int[] labels, ReusedRows reused) {
    BatchTensors t = m.upload(b, x.clone(), labels, labels.length);
    FloatTensor lg = m.forward(t, true, 5, reused);
    int classes = m.config().classes();
    float[] logits = new float[labels.length * classes];
    m.backend().download(lg, 0, logits, 0, logits.length);
    CpuBackend h = new CpuBackend();
    return h.softmaxCrossEntropy(
        h.wrap(logits),
        labels.length,
        classes,
        h.wrap(labels),
        h.wrap(new float[logits.length]),
        null,
        1f);
  }

  @Test
  void cachedRowsGiveNoGradientAndTheirEmbeddingsReachTheOutput() {
    GnnModel m = new GnnModel(SMALL_SAGE, new CpuBackend());
    m.init(4);
    MiniBatch mb = batch();
    float[] x = features(3);
    ReusedRows reused = new ReusedRows();
    HotPruner pruner = prunedFor12And13();
    Block[] b = pruner.blocks();
    float[] full = x;
    x = pruner.compact(full, 2, null);
    float[] cache = {0.5f, -0.25f, 1f, 2f, 0f, -1f};
    pruner.describe(reused, ((CpuBackend) m.backend()).wrap(cache));
    int[] labels = {1, 0};

    BatchTensors t = m.upload(b, x.clone(), labels, 2);
    long flops = m.denseFlops();
    m.forward(t, true, 5, reused);
    // Layer 0's product covers the 3 computed rows only (2 x rows x out x 2in), layer 1 its 2.
    assertThat(m.denseFlops() - flops).isEqualTo(2L * 3 * 3 * 4 + 2L * 2 * 2 * 6);
    float[] h0 = m.layerOutput(0);
    assertThat(h0).hasSize(5 * 3);
    assertThat(Arrays.copyOfRange(h0, 6, 12)).containsExactly(cache);
    FloatTensor lg = m.forward(m.upload(b, x.clone(), labels, 2), true, 5, reused);
    float[] logits = new float[4];
    m.backend().download(lg, 0, logits, 0, 4);
    float[] d = new float[4];
    CpuBackend h = new CpuBackend();
    h.softmaxCrossEntropy(
        h.wrap(logits), 2, 2, h.wrap(labels), h.wrap(new float[4]), h.wrap(d), 1f);
    m.zeroGrad();
    m.backward(d);
    float[] analytic = m.grads();

    // Central differences over layer 0's parameters with the cached rows held constant: the
    // analytic gradient must be that of the loss in which they are constants.
    float[] p = m.params();
    int layer0 = 2 * 2 * 3 + 3;
    for (int i = 0; i < layer0; i++) {
      float saved = p[i];
      float eps = 1e-2f;
      p[i] = saved + eps;
      m.loadParams(p);
      double lp = loss(m, b, x, labels, reused);
      p[i] = saved - eps;
      m.loadParams(p);
      double lm = loss(m, b, x, labels, reused);
      p[i] = saved;
      m.loadParams(p);
      double numeric = (lp - lm) / (2 * eps);
      assertThat(Math.abs(analytic[i] - numeric))
          .as("param %d analytic %f numeric %f", i, analytic[i], numeric)
          .isLessThanOrEqualTo(2e-3 + 2e-2 * Math.abs(numeric));
    }
    // Computing the hot rows instead gives another gradient: the check above can fail.
    m.zeroGrad();
    m.forward(m.upload(Block.of(mb), full.clone(), labels, 2), true, 5, null);
    m.backward(d);
    assertThat(m.grads()).isNotEqualTo(analytic);
  }

  /**
   * A cache of layer 0's aggregated inputs that holds the batch's own rows turns the pruned step
   * into the full one: layer 0 multiplies every row, the reused ones included, with the step's
   * parameters, so the logits and every parameter's gradient, layer 0's included, are those of the
   * batch computed in full (up to the products' rounding), while the reused rows' neighbors are
   * neither gathered nor aggregated.
   */
  @Test
  void reusedInputsGiveTheFullBatchsLogitsAndGradient() {
    checkReusedInputs(new CpuBackend(), 1e-6f, 1e-5f);
  }

  /** {@link #reusedInputsGiveTheFullBatchsLogitsAndGradient} on {@code be}, within the bounds. */
  static void checkReusedInputs(Backend be, float absTol, float relTol) {
    try (GnnModel m = new GnnModel(SMALL_SAGE, be);
        GnnModel worker = new GnnModel(SMALL_SAGE, be)) {
      m.init(4);
      m.allowSparseInput(false);
      worker.allowSparseInput(false);
      MiniBatch mb = batch();
      float[] x = features(7);
      int[] labels = {1, 0};
      float[] d = logitGradient(m, Block.of(mb), x, labels, null);
      float[] fullLogits =
          logits(m, m.forward(m.upload(Block.of(mb), x.clone(), labels, 2), true, 5, null));
      m.zeroGrad();
      m.backward(d);
      float[] fullGrads = m.grads();

      // The worker aggregates the hot rows' [x_v | mean of neighbors] into slots 0 and 1.
      uploadHotBlock(worker, x);
      FloatTensor cache = worker.layerZeroInputRows(false, 0);
      HotPruner p = prunedFor12And13();
      ReusedRows reused = new ReusedRows();
      p.describe(reused, cache);
      reused.inputs(true);
      BatchTensors t = m.upload(p.blocks(), p.compact(x, 2, null), labels, 2);
      long flops = m.denseFlops();
      float[] got = logits(m, m.forward(t, true, 5, reused));
      // Layer 0's product covers all 5 rows (2 x rows x out x 2in), layer 1 its 2; the rows of
      // ids 17 and 18, read only by the hot rows, are neither uploaded nor aggregated.
      assertThat(m.denseFlops() - flops).isEqualTo(2L * 5 * 3 * 4 + 2L * 2 * 2 * 6);
      assertThat(p.keptNodes()).doesNotContain(17, 18);
      for (int i = 0; i < got.length; i++) {
        assertThat(Math.abs(got[i] - fullLogits[i]))
            .as("logit %d", i)
            .isLessThanOrEqualTo(absTol + relTol * Math.abs(fullLogits[i]));
      }
      m.zeroGrad();
      m.backward(d);
      float[] g = m.grads();
      for (int i = 0; i < g.length; i++) {
        assertThat(Math.abs(g[i] - fullGrads[i]))
            .as("param %d: %f against %f", i, g[i], fullGrads[i])
            .isLessThanOrEqualTo(absTol + relTol * Math.abs(fullGrads[i]));
      }
      // With layer 0's outputs reused instead, the same rows pass it no gradient.
      worker.loadParams(m.params());
      uploadHotBlock(worker, x);
      reused.clear();
      p.describe(reused, worker.forwardUploadedLayer(0));
      m.forward(m.upload(p.blocks(), p.compact(x, 2, null), labels, 2), true, 5, reused);
      m.zeroGrad();
      m.backward(d);
      assertThat(m.grads()).isNotEqualTo(fullGrads);
    }
  }

  private static float[] logits(GnnModel m, FloatTensor lg) {
    return host(m, lg, 2 * m.config().classes());
  }

  /**
   * With the hot rows' neighborhoods in the hot block as in the batch, no dropout and embeddings of
   * the current parameters, the step's gradient plus the deferred backward of what it left in the
   * gradient sink is the gradient of the batch computed in full: the deferred backward gives layer
   * 0 exactly the reused rows' share.
   */
  @Test
  void deferredBackwardGivesLayerZeroTheReusedRowsShare() {
    checkDeferredShare(new CpuBackend(), 1e-6f, 1e-5f);
  }

  /** {@link #deferredBackwardGivesLayerZeroTheReusedRowsShare} on {@code be}, within the bounds. */
  static void checkDeferredShare(Backend be, float absTol, float relTol) {
    try (GnnModel m = new GnnModel(SMALL_SAGE, be);
        GnnModel worker = new GnnModel(SMALL_SAGE, be)) {
      m.init(4);
      worker.loadParams(m.params());
      MiniBatch mb = batch();
      float[] full = features(3);
      uploadHotBlock(worker, full);
      FloatTensor cache = worker.forwardUploadedLayer(0);
      HotPruner pruner = prunedFor12And13();
      ReusedRows reused = new ReusedRows();
      pruner.describe(reused, cache);
      ReusedGradients sink = new ReusedGradients(be, 2, 3);
      reused.gradientSink(sink);
      int[] labels = {1, 0};
      float[] d = logitGradient(m, pruner.blocks(), pruner.compact(full, 2, null), labels, reused);
      m.zeroGrad();
      m.backward(d);
      float[] step = m.grads();
      float[] sunk = new float[6];
      be.download(sink.sum(), 0, sunk, 0, 6);
      assertThat(sunk).as("the reused rows' output gradient").isNotEqualTo(new float[6]);
      worker.backwardUploadedLayer(0, sink.sum());
      float[] deferred = worker.grads();

      float[] d2 = logitGradient(m, Block.of(mb), full, labels, null);
      for (int i = 0; i < d.length; i++) { // the same logits: the cache holds the rows' outputs
        assertThat(Math.abs(d2[i] - d[i])).isLessThanOrEqualTo(absTol + relTol * Math.abs(d[i]));
      }
      m.zeroGrad();
      m.backward(d); // the step's logit gradient, so that only layer 0's paths differ
      float[] whole = m.grads();
      int layer0 = 2 * 2 * 3 + 3;
      for (int i = 0; i < whole.length; i++) {
        float sum = step[i] + deferred[i];
        assertThat(Math.abs(sum - whole[i]))
            .as("param %d: step %f + deferred %f against %f", i, step[i], deferred[i], whole[i])
            .isLessThanOrEqualTo(absTol + relTol * Math.abs(whole[i]));
        if (i >= layer0) {
          assertThat(deferred[i]).as("param %d is not layer 0's", i).isZero();
        }
      }
      assertThat(Arrays.copyOf(step, layer0)).isNotEqualTo(Arrays.copyOf(whole, layer0));
      sink.close();
    }
  }

  /** The softmax cross-entropy gradient of a training forward's logits (labels all counted). */
  private static float[] logitGradient(
      GnnModel m, Block[] b, float[] x, int[] labels, ReusedRows reused) {
    FloatTensor lg = m.forward(m.upload(b, x.clone(), labels, labels.length), true, 5, reused);
    int n = labels.length * m.config().classes();
    float[] logits = new float[n];
    m.backend().download(lg, 0, logits, 0, n);
    float[] d = new float[n];
    CpuBackend h = new CpuBackend();
    h.softmaxCrossEntropy(
        h.wrap(logits),
        labels.length,
        m.config().classes(),
        h.wrap(labels),
        h.wrap(new float[n]),
        h.wrap(d),
        1f);
    return d;
  }

  /**
   * When refresh k+1 lands, the sum of the steps that read refresh k goes back through layer 0 at
   * refresh k's parameters and dropout masks; overlapped, the steps reading refresh k+2 each add a
   * period-th of the result, inline (computed at once) those reading refresh k+1.
   */
  @Test
  void deferredGradientOfARefreshsReadersLandsTwoRefreshesLater() {
    // overlapped, S 4: lag 2, P 3. Refresh 0 is read by steps 0..4; its backward runs when refresh
    // 1 lands (step 5) and lands with refresh 2 (step 8), read by steps 8..10.
    checkDeferredLanding(ReuseRefresh.OVERLAPPED, 8, 3);
    // inline, S 4: lag 0, P 5. Refresh 0 is read by steps 0..4, refresh 1 (step 5) by 5..9, and
    // the backward of refresh 0 lands with it.
    checkDeferredLanding(ReuseRefresh.INLINE, 5, 5);
  }

  private static void checkDeferredLanding(ReuseRefresh refreshMode, int from, int period) {
    HotReuse r = new HotReuse(0.05, 4, HotBy.FREQUENCY, refreshMode, ReuseBackward.DEFERRED);
    HotSet f = HotSet.build(TrainerTest.data(3, 2), r, 600, null);
    try (Trainer t = TrainerTest.trainer("sage", 1, 3)) {
      GnnModel m = t.model();
      m.init(3);
      int np = m.numParams();
      int n = f.size() * m.layerOutDim(0);
      float[] dy = new float[n];
      for (int i = 0; i < n; i++) {
        dy[i] = CounterRng.uniform(8, i) - 0.5f;
      }
      try (HotRefresh refresh = new HotRefresh(m, f, r, 5);
          GnnModel fresh = new GnnModel(m.config(), m.backend())) {
        fresh.loadParams(m.params());
        fresh.uploadLayerInput(0, f.block(), f.features());
        fresh.forwardUploadedLayer(0, true, HotRefresh.dropoutKey(5, 0));
        fresh.backwardUploadedLayer(0, ((CpuBackend) m.backend()).wrap(dy.clone()));
        float[] want = fresh.grads();

        FloatTensor acc = m.backend().allocFloat(np);
        for (int step = 0; step < from + period + 2; step++) {
          refresh.beforeStep(step, m);
          if (step == 0) {
            int[] all = new int[f.size()];
            for (int i = 0; i < all.length; i++) {
              all[i] = i;
            }
            refresh.gradientSink().append(all, dy, f.size());
            float[] p = m.params(); // later refreshes have other parameters, unused here
            for (int i = 0; i < p.length; i++) {
              p[i] *= 0.5f;
            }
            m.loadParams(p);
          }
          m.backend().zero(acc, 0, np);
          refresh.addDeferredGradient(acc);
          float[] got = host(m, acc, np);
          if (step < from) {
            assertThat(got).as("%s step %d", refreshMode, step).containsOnly(0f);
          } else if (step < from + period) {
            for (int i = 0; i < np; i++) {
              assertThat(got[i])
                  .as("%s step %d param %d", refreshMode, step, i)
                  .isEqualTo(want[i] * (1f / period));
            }
          } else {
            assertThat(got).as("%s step %d: only step 0 sank", refreshMode, step).containsOnly(0f);
          }
        }
        m.backend().free(acc);
      }
    }
  }

  /**
   * Overlapped refreshes are read {@code lag} steps after they take the parameters and come every
   * {@code S + 1 - lag} steps; inline ones are read from their own step and come every {@code S +
   * 1} steps. Either way no step reads an embedding older than S, and one reads one exactly S old.
   */
  @Test
  void scheduleKeepsEveryReusedEmbeddingWithinTheStalenessBound() {
    for (ReuseRefresh mode : new ReuseRefresh[] {ReuseRefresh.OVERLAPPED, ReuseRefresh.INLINE}) {
      boolean inline = mode == ReuseRefresh.INLINE;
      for (int s = 1; s <= 6; s++) {
        HotReuse r = new HotReuse(0.2, s, HotBy.FREQUENCY, mode);
        assertThat(r.lag()).isEqualTo(Math.max(1, (int) Math.ceil(s / 2.0)));
        assertThat(r.lag(inline)).isEqualTo(inline ? 0 : r.lag());
        assertThat(r.period(inline)).isEqualTo(s + 1 - r.lag(inline));
        Trainer t = TrainerTest.trainer("sage", 1, 3).reuseHot(r, 600, null);
        SampledEpochs data = TrainerTest.data(3, 1);
        t.model().init(3);
        t.prepareReuse(data);
        EpochStats e;
        try (BatchStream st = data.open(0)) {
          e = t.trainEpoch(0, -1, st, 0.01f, TrainProgress.NONE);
        }
        Map<String, Object> stats = t.reuseStats();
        String as = mode + " staleness " + s;
        assertThat(t.maxReusedAge()).as(as).isBetween(1, s);
        if (e.batches() > s) { // step S reads the first refresh, taken at step 0
          assertThat(t.maxReusedAge()).as(as).isEqualTo(s);
        }
        int period = r.period(inline);
        int started = (e.batches() + period - 1) / period;
        // an overlapped refresh started in the last steps may still be computing
        assertThat((int) stats.get("refreshes"))
            .as(as)
            .isBetween(inline ? started : started - 1, started);
        assertThat((int) stats.get("hot_vertices")).isEqualTo(120);
        assertThat((double) stats.get("bottom_edges_avoided_fraction")).isGreaterThan(0.05);
        assertThat((double) stats.get("feature_rows_avoided_fraction")).isGreaterThan(0.0);
        t.close();
      }
    }
  }

  @Test
  void hotSetIsTheMostFrequentNonSeedBottomRowsOrTheHighestInDegree() {
    SampledEpochs data = TrainerTest.data(3, 2);
    HotSet f = HotSet.build(data, new HotReuse(0.05, 2, HotBy.FREQUENCY), 600, null);
    int[] count = new int[600];
    try (BatchStream s = data.open(0)) {
      TrainBatch b;
      while ((b = s.next()) != null) {
        MiniBatch mb = b.batch();
        for (int i = mb.numSeeds(); i < mb.layerSize(1); i++) {
          count[mb.nodes()[i]]++;
        }
        s.recycle(b);
      }
    }
    assertThat(f.size()).isEqualTo(30);
    int minHot = Integer.MAX_VALUE;
    for (int v : f.vertices()) {
      minHot = Math.min(minHot, count[v]);
    }
    for (int v = 0; v < 600; v++) {
      if (f.slotOf()[v] < 0) {
        assertThat(count[v]).isLessThanOrEqualTo(minHot);
      }
    }
    assertThat(f.block().numDst()).isEqualTo(30);
    assertThat(f.features()).hasSize(f.block().numSrc() * 12);

    HotSet d =
        HotSet.build(
            data,
            new HotReuse(0.05, 2, HotBy.IN_DEGREE),
            600,
            v -> TrainerTest.graph.csr.degree(v));
    long minDeg = Long.MAX_VALUE;
    for (int v : d.vertices()) {
      minDeg = Math.min(minDeg, TrainerTest.graph.csr.degree(v));
    }
    for (int v = 0; v < 600; v++) {
      if (d.slotOf()[v] < 0 && count[v] > 0) {
        assertThat(TrainerTest.graph.csr.degree(v)).isLessThanOrEqualTo(minDeg);
      }
    }
  }

  /**
   * The block's neighbor rows are numbered in the order its rows first read them, and each refresh
   * (the block uploaded once) equals layer 0 computed afresh with that step's parameters.
   */
  @Test
  void refreshesComputeLayerZeroOfTheBlockWithEachRefreshsParameters() {
    HotReuse r = new HotReuse(0.05, 2, HotBy.FREQUENCY); // lag 1, period 2
    HotSet f = HotSet.build(TrainerTest.data(3, 2), r, 600, null);
    Block block = f.block();
    int next = block.numDst();
    for (int q = 0; q < block.indptr()[block.numDst()]; q++) {
      int u = block.indices()[q];
      if (u >= block.numDst()) {
        assertThat(u).as("edge %d", q).isLessThanOrEqualTo(next);
        next = Math.max(next, u + 1);
      }
    }
    assertThat(next).isEqualTo(block.numSrc());

    try (Trainer t = TrainerTest.trainer("sage", 1, 3)) {
      GnnModel m = t.model();
      m.init(3);
      int n = f.size() * m.layerOutDim(0);
      try (HotRefresh refresh = new HotRefresh(m, f, r, 5);
          GnnModel fresh = new GnnModel(m.config(), m.backend())) {
        assertThat(m.config().dropout()).isPositive();
        fresh.loadParams(m.params());
        fresh.uploadLayerInput(0, block, f.features());
        float[] want = host(m, fresh.forwardUploadedLayer(0, true, HotRefresh.dropoutKey(5, 0)), n);
        assertThat(host(m, refresh.beforeStep(0, m), n)).containsExactly(want);
        // layer 0 as a training step computes it: input dropout, masks of the refresh's own key
        float[] inference = Arrays.copyOf(fresh.forwardLayer(0, block, f.features()), n);
        assertThat(inference).isNotEqualTo(want);

        float[] p = m.params();
        for (int i = 0; i < p.length; i++) {
          p[i] *= 0.5f;
        }
        m.loadParams(p);
        fresh.loadParams(p);
        fresh.uploadLayerInput(0, block, f.features());
        float[] want2 =
            host(m, fresh.forwardUploadedLayer(0, true, HotRefresh.dropoutKey(5, 2)), n);
        assertThat(want2).isNotEqualTo(want);
        refresh.beforeStep(1, m);
        refresh.beforeStep(2, m); // starts the refresh of step 2's parameters
        assertThat(host(m, refresh.beforeStep(3, m), n)).containsExactly(want2);
      }
    }
  }

  private static float[] host(GnnModel m, FloatTensor t, int n) {
    float[] h = new float[n];
    m.backend().download(t, 0, h, 0, n);
    return h;
  }

  private float[] train(HotReuse r, int loaderThreads, Path dir, int epochs, boolean resume) {
    try (Trainer t = TrainerTest.trainer("sage", epochs, 9)) {
      if (r != null) {
        t.reuseHot(r, 600, null);
      }
      t.fit(TrainerTest.data(9, loaderThreads), null, dir, resume, Map.of(), null, 0);
      return t.model().params();
    }
  }

  @Test
  void deterministicAndOffMeansUnchanged() {
    HotReuse r = new HotReuse(0.1, 4, HotBy.FREQUENCY);
    float[] a = train(r, 1, tmp.resolve("a"), 2, false);
    float[] b = train(r, 3, tmp.resolve("b"), 2, false);
    assertThat(b).containsExactly(a);
    float[] plain = train(null, 1, tmp.resolve("p"), 2, false);
    assertThat(plain).isNotEqualTo(a);
    assertThat(train(new HotReuse(0, 4, HotBy.FREQUENCY), 2, tmp.resolve("z"), 2, false))
        .containsExactly(plain);
    // The reuse settings are part of the run's identity.
    train(r, 2, tmp.resolve("r"), 1, false);
    assertThatThrownBy(() -> train(null, 2, tmp.resolve("r"), 3, true))
        .hasMessageContaining("reuse_hot");
  }

  /**
   * Inline refreshes (the training thread, the trainer's backend) and overlapped ones (a worker
   * thread on a CPU backend of its own) follow their own schedules (lag 0 and lag 2 at S = 3), so
   * they train different models, each the same bits whatever the loader threads. The setting is
   * part of the checkpoint's identity unless it is the default, auto.
   */
  @Test
  void inlineAndOverlappedRefreshesFollowTheirOwnSchedulesDeterministically() {
    HotReuse overlapped = new HotReuse(0.1, 3, HotBy.FREQUENCY, ReuseRefresh.OVERLAPPED);
    HotReuse inline = new HotReuse(0.1, 3, HotBy.FREQUENCY, ReuseRefresh.INLINE);
    float[] a = train(overlapped, 2, tmp.resolve("o"), 2, false);
    assertThat(train(overlapped, 1, tmp.resolve("o1"), 2, false)).containsExactly(a);
    float[] b = train(inline, 2, tmp.resolve("i"), 2, false);
    assertThat(b).isNotEqualTo(a);
    assertThat(train(inline, 3, tmp.resolve("i3"), 2, false)).containsExactly(b);
    assertThat(new HotReuse(0.1, 3, HotBy.FREQUENCY).toMap()).doesNotContainKey("reuse_refresh");
    assertThat(overlapped.toMap()).containsEntry("reuse_refresh", "overlapped");
    assertThat(inline.toMap()).containsEntry("reuse_refresh", "inline");
    try (Trainer t = TrainerTest.trainer("sage", 1, 3)) {
      t.reuseHot(inline, 600, null).model().init(3);
      SampledEpochs data = TrainerTest.data(3, 1);
      t.prepareReuse(data);
      try (BatchStream st = data.open(0)) {
        t.trainEpoch(0, -1, st, 0.01f, TrainProgress.NONE);
      }
      Map<String, Object> stats = t.reuseStats();
      assertThat(stats).containsEntry("reuse_refresh", "inline");
      assertThat((double) stats.get("refresh_wait_seconds")).isLessThan(0.05);
      assertThat((int) stats.get("refreshes")).isGreaterThan(1);
    }
  }

  /**
   * A deferred backward trains another model than none, the same bits whatever the loader threads
   * (inline and overlapped, each on its own schedule), and is part of the checkpoint's identity.
   */
  @Test
  void deferredBackwardIsDeterministicAndPartOfTheIdentity() {
    HotReuse overlapped =
        new HotReuse(0.1, 3, HotBy.FREQUENCY, ReuseRefresh.OVERLAPPED, ReuseBackward.DEFERRED);
    HotReuse inline =
        new HotReuse(0.1, 3, HotBy.FREQUENCY, ReuseRefresh.INLINE, ReuseBackward.DEFERRED);
    float[] a = train(overlapped, 1, tmp.resolve("do"), 2, false);
    assertThat(train(overlapped, 3, tmp.resolve("do3"), 2, false)).containsExactly(a);
    float[] b = train(inline, 3, tmp.resolve("di"), 2, false);
    assertThat(b).isNotEqualTo(a);
    assertThat(train(inline, 1, tmp.resolve("di1"), 2, false)).containsExactly(b);
    float[] none = train(new HotReuse(0.1, 3, HotBy.FREQUENCY), 2, tmp.resolve("dn"), 2, false);
    assertThat(none).isNotEqualTo(a);
    assertThat(inline.toMap()).containsEntry("reuse_backward", "deferred");
    assertThat(new HotReuse(0.1, 3, HotBy.FREQUENCY).toMap()).doesNotContainKey("reuse_backward");
    HotReuse plain = new HotReuse(0.1, 3, HotBy.FREQUENCY);
    assertThatThrownBy(() -> train(plain, 2, tmp.resolve("do"), 3, true))
        .hasMessageContaining("reuse_backward");
  }

  /**
   * The overlapped worker never touches the trainer's backend: its copy has a backend of its own.
   */
  @Test
  void theOverlappedWorkerComputesOnABackendOfItsOwn() {
    HotReuse r = new HotReuse(0.05, 2, HotBy.FREQUENCY); // auto: overlapped on the CPU
    HotSet f = HotSet.build(TrainerTest.data(3, 2), r, 600, null);
    try (Trainer t = TrainerTest.trainer("sage", 1, 3)) {
      GnnModel m = t.model();
      m.init(3);
      try (HotRefresh refresh = new HotRefresh(m, f, r, 0L)) {
        assertThat(refresh.workerBackend()).isNotSameAs(m.backend()).isInstanceOf(CpuBackend.class);
        assertThat(refresh.workerBackend().name()).isEqualTo(m.backend().name());
      }
      HotReuse inline = new HotReuse(0.05, 2, HotBy.FREQUENCY, ReuseRefresh.INLINE);
      try (HotRefresh refresh = new HotRefresh(m, f, inline, 0L)) {
        assertThat(refresh.workerBackend()).isSameAs(m.backend());
      }
    }
  }

  @Test
  void loaderPrunesBeforeTheGatherWhatTheTrainerWouldPruneAfter() {
    HotReuse r = new HotReuse(0.1, 2, HotBy.FREQUENCY);
    SampledEpochs data = TrainerTest.data(3, 2);
    HotSet hot = HotSet.build(data, r, 600, null);
    int pruned = 0;
    long gathered = 0;
    long sampled = 0;
    long sampledLeavingOut = 0; // the loader leaves the hot rows out of the bottom hop
    try (BatchStream all = data.open(0);
        BatchStream some = data.open(0, null, hot)) {
      TrainBatch a;
      while ((a = all.next()) != null) {
        TrainBatch b = some.next();
        HotPruner p = new HotPruner();
        boolean active = p.prune(a.batch(), hot.slotOf());
        assertThat(b.prunedFor).isSameAs(hot);
        assertThat(b.pruner.active()).isEqualTo(active);
        sampled += a.batch().nodes().length;
        sampledLeavingOut += b.batch().nodes().length;
        if (active) {
          pruned++;
          Block x = p.blocks()[0];
          Block y = b.pruner.blocks()[0];
          assertThat(y.numDst()).isEqualTo(x.numDst());
          assertThat(y.numSrc()).isEqualTo(x.numSrc());
          assertThat(Arrays.copyOf(y.indptr(), y.numDst() + 1))
              .containsExactly(Arrays.copyOf(x.indptr(), x.numDst() + 1));
          int e = x.indptr()[x.numDst()];
          assertThat(Arrays.copyOf(y.indices(), e)).containsExactly(Arrays.copyOf(x.indices(), e));
          int n = x.numSrc() * a.dim();
          assertThat(Arrays.copyOf(b.features(), n))
              .containsExactly(Arrays.copyOf(p.compact(a.features(), a.dim(), null), n));
          gathered += b.pruner.kept(); // the rows its loader gathered
        } else {
          gathered += a.batch().nodes().length;
        }
        all.recycle(a);
        some.recycle(b);
      }
      assertThat(some.next()).isNull();
    }
    assertThat(pruned).isGreaterThan(0);
    // Fewer rows read from the feature table than the batches sample, and fewer sampled.
    assertThat(gathered).isLessThan(sampled);
    assertThat(sampledLeavingOut).isLessThan(sampled);

    // A loader that does not gather (zero-copy) prunes the same blocks and brings no rows: the
    // trainer reads the pruned block's sources, keptNodes, in place.
    SampledEpochs ids =
        new SampledEpochs(
                TrainerTest.graph.csr,
                TrainerTest.graph.vertices,
                TrainerTest.graph.features,
                TrainerTest.graph.vertices.ofSplit(StoreLayout.SPLIT_TRAIN),
                new int[] {5, 3},
                32,
                3,
                true,
                FeatureNormKind.NONE,
                2)
            .gather(false);
    try (BatchStream some = data.open(0, null, hot);
        BatchStream bare = ids.open(0, null, hot)) {
      TrainBatch a;
      while ((a = some.next()) != null) {
        TrainBatch b = bare.next();
        assertThat(b.features()).isNull();
        assertThat(b.prunedFor).isSameAs(hot);
        assertThat(b.pruner.active()).isEqualTo(a.pruner.active());
        if (a.pruner.active()) {
          int k = a.pruner.kept();
          assertThat(b.pruner.kept()).isEqualTo(k);
          assertThat(Arrays.copyOf(b.pruner.keptNodes(), k))
              .containsExactly(Arrays.copyOf(a.pruner.keptNodes(), k));
        }
        some.recycle(a);
        bare.recycle(b);
      }
      assertThat(bare.next()).isNull();
    }

    // Training on batches pruned by the loader or by the trainer gives the same model.
    float[][] params = new float[2][];
    for (int k = 0; k < 2; k++) {
      try (Trainer t = TrainerTest.trainer("sage", 1, 3).reuseHot(r, 600, null)) {
        t.model().init(3);
        t.prepareReuse(data);
        try (BatchStream st = k == 0 ? t.open(data, 0) : data.open(0)) {
          t.trainEpoch(0, -1, st, 0.01f, TrainProgress.NONE);
        }
        assertThat((long) t.reuseStats().get("feature_rows_avoided")).isGreaterThan(0L);
        params[k] = t.model().params();
      }
    }
    assertThat(params[0]).containsExactly(params[1]);
  }

  /**
   * Staleness auto is a twelfth of an epoch's steps, at least 1, set when the hot set is selected
   * from epoch 0; the identity records auto, the stats the steps it became.
   */
  @Test
  void autoStalenessIsATwelfthOfAnEpochsSteps() {
    HotReuse a = new HotReuse(0.1, HotReuse.AUTO_STALENESS, HotBy.FREQUENCY);
    assertThat(a.resolve(201).staleness()).isEqualTo(16);
    assertThat(a.resolve(24).staleness()).isEqualTo(2);
    assertThat(a.resolve(11).staleness()).isEqualTo(1);
    assertThat(a.resolve(1).staleness()).isEqualTo(1);
    assertThat(new HotReuse(0.1, 5, HotBy.FREQUENCY).resolve(201).staleness()).isEqualTo(5);
    assertThat(a.toMap()).containsEntry("staleness", "auto");
    assertThatThrownBy(a::lag).isInstanceOf(IllegalStateException.class);
    SampledEpochs data = TrainerTest.data(3, 1);
    int batches = 0;
    try (BatchStream st = data.open(0)) {
      TrainBatch b;
      while ((b = st.next()) != null) {
        batches++;
        st.recycle(b);
      }
    }
    try (Trainer t = TrainerTest.trainer("sage", 1, 3)) {
      t.reuseHot(a, 600, null).model().init(3);
      t.prepareReuse(data);
      assertThat(t.hotSet().epochBatches()).isEqualTo(batches);
      try (BatchStream st = data.open(0)) {
        t.trainEpoch(0, -1, st, 0.01f, TrainProgress.NONE);
      }
      int want = Math.max(1, batches / 12);
      assertThat(t.reuseStats()).containsEntry("staleness_steps", want);
      assertThat(t.maxReusedAge()).isBetween(1, want);
    }
  }

  @Test
  void rowsAutoIsInputsForSageOnlyWithoutTheDeferredBackward() {
    ReuseBackward none = ReuseBackward.NONE;
    assertThat(HotReuse.resolveRows(ReuseRows.AUTO, ModelKind.SAGE, none))
        .isEqualTo(ReuseRows.INPUTS);
    assertThat(HotReuse.resolveRows(ReuseRows.AUTO, ModelKind.GCN, none))
        .isEqualTo(ReuseRows.OUTPUTS);
    assertThat(HotReuse.resolveRows(ReuseRows.AUTO, ModelKind.SAGE, ReuseBackward.DEFERRED))
        .isEqualTo(ReuseRows.OUTPUTS);
    // an explicit choice stays, even one the model then refuses
    assertThat(HotReuse.resolveRows(ReuseRows.OUTPUTS, ModelKind.SAGE, none))
        .isEqualTo(ReuseRows.OUTPUTS);
    assertThat(HotReuse.resolveRows(ReuseRows.INPUTS, ModelKind.GCN, none))
        .isEqualTo(ReuseRows.INPUTS);
    // refreshes of inputs have no product to overlap: auto runs them inline on the CPU too
    CpuBackend cpu = new CpuBackend();
    assertThat(
            new HotReuse(0.1, 2, HotBy.FREQUENCY, ReuseRefresh.AUTO, none, ReuseRows.INPUTS)
                .inlineOn(cpu))
        .isTrue();
    assertThat(
            new HotReuse(0.1, 2, HotBy.FREQUENCY, ReuseRefresh.AUTO, none, ReuseRows.OUTPUTS)
                .inlineOn(cpu))
        .isFalse();
    assertThat(
            new HotReuse(0.1, 2, HotBy.FREQUENCY, ReuseRefresh.OVERLAPPED, none, ReuseRows.INPUTS)
                .inlineOn(cpu))
        .isFalse();
  }

  @Test
  void rejectsBadSettings() {
    assertThatThrownBy(() -> new HotReuse(1.5, 2, HotBy.FREQUENCY))
        .hasMessageContaining("reuse-hot");
    assertThatThrownBy(() -> new HotReuse(0.1, -1, HotBy.FREQUENCY))
        .hasMessageContaining("staleness");
    assertThatThrownBy(() -> new HotReuse(0.1, 2, null)).hasMessageContaining("hot-by");
    assertThatThrownBy(() -> new HotReuse(0.1, 2, HotBy.FREQUENCY, ReuseRefresh.AUTO, null))
        .hasMessageContaining("reuse-backward");
    assertThatThrownBy(() -> HotBy.parse("pagerank"))
        .hasMessageContaining("expected one of frequency|in-degree");
    assertThatThrownBy(() -> ReuseRefresh.parse("async"))
        .hasMessageContaining("expected one of auto|overlapped|inline");
    assertThatThrownBy(
            () ->
                new HotReuse(
                    0.1, 2, HotBy.FREQUENCY, ReuseRefresh.AUTO, ReuseBackward.NONE, ReuseRows.AUTO))
        .hasMessageContaining("reuse-rows must be outputs or inputs, got 'auto'");
    assertThatThrownBy(
            () ->
                new HotReuse(
                    0.1,
                    2,
                    HotBy.FREQUENCY,
                    ReuseRefresh.AUTO,
                    ReuseBackward.DEFERRED,
                    ReuseRows.INPUTS))
        .hasMessageContaining("reuse-backward deferred applies to reuse-rows outputs");
  }

  /**
   * A cache of inputs trains another model than one of outputs, the same bits whatever the loader
   * threads and refresh mode's schedule, and is part of the checkpoint's identity (a cache of
   * outputs writes no entry, as before the option existed). A GCN model is refused.
   */
  @Test
  void reusedInputsAreDeterministicAndPartOfTheIdentity() {
    HotReuse inputs =
        new HotReuse(
            0.1, 3, HotBy.FREQUENCY, ReuseRefresh.INLINE, ReuseBackward.NONE, ReuseRows.INPUTS);
    float[] a = train(inputs, 1, tmp.resolve("ii"), 2, false);
    assertThat(train(inputs, 3, tmp.resolve("ii3"), 2, false)).containsExactly(a);
    float[] outputs =
        train(
            new HotReuse(0.1, 3, HotBy.FREQUENCY, ReuseRefresh.INLINE),
            2,
            tmp.resolve("io"),
            2,
            false);
    assertThat(outputs).isNotEqualTo(a);
    assertThat(train(null, 2, tmp.resolve("in"), 2, false)).isNotEqualTo(a);
    assertThat(inputs.toMap()).containsEntry("reuse_rows", "inputs");
    assertThat(new HotReuse(0.1, 3, HotBy.FREQUENCY).toMap()).doesNotContainKey("reuse_rows");
    assertThat(HotReuse.identityKeys()).contains("reuse_rows", "reuse_backward");
    HotReuse plain = new HotReuse(0.1, 3, HotBy.FREQUENCY, ReuseRefresh.INLINE);
    assertThatThrownBy(() -> train(plain, 2, tmp.resolve("ii"), 3, true))
        .hasMessageContaining("reuse_rows");
    try (Trainer t = TrainerTest.trainer("gcn", 1, 3)) {
      t.reuseHot(inputs, 600, null).model().init(3);
      SampledEpochs data = TrainerTest.data(3, 1);
      assertThatThrownBy(() -> t.prepareReuse(data)).hasMessageContaining("sage");
    }
  }
}
