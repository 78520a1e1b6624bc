package io.fanout.train.typed;

import io.fanout.graph.TypedGraph;
import io.fanout.nn.typed.ReusedBottom;
import io.fanout.nn.typed.TypedModel;
import io.fanout.tensor.FloatTensor;
import io.fanout.train.HotReuse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntPredicate;

/**
 * Hot-embedding reuse within one typed trainer's run ({@code train --reuse-hot}), for node and link
 * training alike: the settings, the hot set (selected from epoch 0 on first use), and the refresh
 * of its cached layer-0 rows with their deferred gradient. Closing it stops the refresh.
 */
final class TypedReuseRun implements AutoCloseable {
  private final TypedModel model;
  private HotReuse reuse = HotReuse.OFF;
  private TypedHotSet hotSet;
  private TypedHotRefresh refresh;

  TypedReuseRun(TypedModel model) {
    this.model = model;
  }

  /** Sets reuse before training; {@link HotReuse#OFF} (the default) trains as without it. */
  void set(HotReuse reuse) {
    if (refresh != null) {
      throw new IllegalStateException("hot reuse is set before training");
    }
    TypedHotReuse.check(reuse, model.config());
    this.reuse = reuse;
  }

  /** The settings, for the checkpoint's identity. */
  HotReuse settings() {
    return reuse;
  }

  /**
   * Selects the hot set from {@code epochs}' epoch 0 and starts the refresh, once, when reuse is
   * on; {@code loop}'s loaders then prune every batch for it.
   */
  void start(TypedEpochs epochs, TypedGraph graph, long seed, TypedEpochLoop loop) {
    if (!reuse.enabled() || hotSet != null) {
      return;
    }
    // an overlapped refresh computes on a CPU copy of its own, which reads every row from the host
    IntPredicate inPlace = TypedHotRefresh.overlapped(reuse) ? t -> false : model::readsInPlace;
    hotSet =
        TypedHotSet.build(epochs, graph, model.config(), reuse.fraction(), reuse.hotBy(), inPlace);
    refresh = new TypedHotRefresh(model, hotSet, reuse.resolve(hotSet.epochBatches()), seed);
    model.keepReusedGradients(refresh.deferred());
    loop.pruneFor(hotSet);
  }

  /** Whether reuse runs (started and on). */
  boolean active() {
    return refresh != null;
  }

  /** The cached rows step {@code step} reads, or null without reuse. */
  FloatTensor beforeStep(long step) {
    return refresh == null ? null : refresh.beforeStep(step);
  }

  /** {@code in}'s bottom hop pruned for the hot set (null without reuse or without a hot row). */
  ReusedBottom reusedOf(TypedInputs in) {
    return TypedEpochLoop.reusedOf(in, hotSet);
  }

  /**
   * After a step's backward: with {@code --reuse-backward deferred}, keeps the gradient of the rows
   * it reused ({@code reused}, null: none) and adds the deferred gradient due at this step.
   */
  void afterBackward(ReusedBottom reused) {
    if (refresh == null || !refresh.deferred()) {
      return;
    }
    if (reused != null) {
      refresh.addReusedGradients(reused.hotSlot(), model.reusedRowGradients());
    }
    refresh.addDeferredGradient(model.gradTensor());
  }

  /**
   * What reuse did so far: hot vertices, the staleness bound, the schedule, refreshes, their
   * seconds and the training thread's wait for them, the oldest cache a step read; empty without
   * reuse.
   */
  Map<String, Object> stats() {
    Map<String, Object> m = new LinkedHashMap<>();
    if (refresh != null) {
      m.put("hot_vertices", hotSet.size());
      m.put("hot_block_host_rows", hotSet.hostRows());
      m.put("staleness_steps", refresh.staleness());
      m.put("refreshes", refresh.refreshes());
      m.put("reuse_refresh", refresh.inline() ? "inline" : "overlapped");
      m.put("refresh_seconds", refresh.refreshSeconds());
      m.put("refresh_wait_seconds", refresh.waitSeconds());
      m.put("max_embedding_age_steps", refresh.maxAge());
    }
    return m;
  }

  @Override
  public void close() {
    if (refresh != null) {
      refresh.close();
    }
  }
}
