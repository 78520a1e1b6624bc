package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.typed.SimpleTypedSampler;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.nn.typed.TypedTestGraphs;
import io.fanout.tensor.Backend;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.cuda.CudaBackend;
import io.fanout.tensor.cuda.GpuTests;
import io.fanout.train.HotBy;
import io.fanout.train.HotReuse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The typed models on CUDA (they use only the backend's existing operations): parameters after a
 * few epochs close to the CPU's, and bit-identical over two CUDA runs of the same seed. Skipped,
 * with the reason printed, where no CUDA device exists.
 */
@Tag("gpu")
class CudaTypedTrainingTest {
  private static float[] train(Backend be, TypedModelKind kind, int bases) {
    return train(be, kind, bases, HotReuse.OFF);
  }

  private static float[] train(Backend be, TypedModelKind kind, int bases, HotReuse reuse) {
    ArrayTypedGraph g = TypedTestGraphs.small(3);
    TypedModelConfig cfg =
        TypedModelConfig.of(g.schema(), 0, kind, 8, 2, 0.2f, bases, EmbeddingMode.AUTO);
    SimpleTypedSampler s = new SimpleTypedSampler(g, 0, new int[] {4, 3}, 9);
    TypedTrainOptions opts = new TypedTrainOptions(3, 6, 0.02f, 1e-4f, 5);
    try (TypedModel m = new TypedModel(cfg, be);
        TypedTrainer t = new TypedTrainer(m, g, s::sample, opts)) {
      t.reuseHot(reuse);
      m.init(opts.seed());
      t.fit(null, null);
      float[] p = m.params();
      float[] e = m.embeddings(2).chunks(0)[0];
      float[] both = java.util.Arrays.copyOf(p, p.length + e.length);
      System.arraycopy(e, 0, both, p.length, e.length);
      return both;
    } finally {
      be.close();
    }
  }

  @Test
  void cudaMatchesTheCpuAndIsDeterministic() {
    check(HotReuse.OFF);
  }

  /** Hot reuse (layer 0 on the pruned hop, the cached rows placed on the backend) as well. */
  @Test
  void cudaHotReuseMatchesTheCpuAndIsDeterministic() {
    check(new HotReuse(0.5, 2, HotBy.FREQUENCY));
  }

  /**
   * Overlapped refreshes (computed on a CPU copy, uploaded when they land) with the deferred
   * backward (the reused rows' gradients gathered on the device, layer 0's backward on the copy).
   */
  @Test
  void cudaOverlappedDeferredReuseMatchesTheCpuAndIsDeterministic() {
    check(
        new HotReuse(
            0.5,
            2,
            HotBy.FREQUENCY,
            io.fanout.train.ReuseRefresh.OVERLAPPED,
            io.fanout.train.ReuseBackward.DEFERRED));
  }

  private static void check(HotReuse reuse) {
    GpuTests.assumeDevice();
    for (TypedModelKind kind : TypedModelKind.values()) {
      int bases = kind == TypedModelKind.RGCN ? 2 : 0;
      float[] cpu = train(new CpuBackend(), kind, bases, reuse);
      float[] a = train(new CudaBackend(0), kind, bases, reuse);
      float[] b = train(new CudaBackend(0), kind, bases, reuse);
      assertThat(b).as("%s twice on CUDA", kind).containsExactly(a);
      // Adam steps of lr 0.02 may differ by a sign where a gradient is near zero: a loose max, a
      // tight mean
      double maxDiff = 0;
      double sumDiff = 0;
      for (int i = 0; i < cpu.length; i++) {
        maxDiff = Math.max(maxDiff, Math.abs(cpu[i] - a[i]));
        sumDiff += Math.abs(cpu[i] - a[i]);
      }
      assertThat(maxDiff).as("%s CUDA vs CPU, max", kind).isLessThan(0.05);
      assertThat(sumDiff / cpu.length).as("%s CUDA vs CPU, mean", kind).isLessThan(1e-3);
    }
  }
}
