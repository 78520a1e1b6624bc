package io.fanout.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.train.GradientReducer;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DataParallelLoopTest {
  private static ExecutorService pool;

  @BeforeAll
  static void startPool() {
    pool = Executors.newCachedThreadPool();
  }

  @AfterAll
  static void stopPool() {
    pool.shutdownNow();
  }

  static SoftmaxRegressionReplica replica(long seed, int examples) {
    return new SoftmaxRegressionReplica(seed, examples, 12, 4, 25, 0.5f, 0.9f);
  }

  /** Runs {@code n} workers in threads; worker r trains {@code replicas.apply(r)}. */
  static List<Object[]> runWorkers(
      int n,
      int batchesPerStep,
      int epochs,
      Path ckpt,
      int every,
      boolean verify,
      IntFunction<SoftmaxRegressionReplica> replicas,
      DataParallelLoop.StepListener listener)
      throws Exception {
    List<ServerSocketChannel> servers = MeshAllReduceTest.servers(n);
    List<String> eps = MeshAllReduceTest.endpoints(servers);
    List<Future<Object[]>> fs = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      int rank = r;
      fs.add(
          pool.submit(
              () -> {
                SoftmaxRegressionReplica rep = replicas.apply(rank);
                try (MeshAllReduce ar =
                    MeshAllReduce.connect(rank, eps, servers.get(rank), 5L, 20_000)) {
                  DataParallelLoop loop =
                      new DataParallelLoop(
                          rep,
                          ar,
                          batchesPerStep,
                          epochs,
                          ckpt == null ? null : new Checkpoints(ckpt),
                          every,
                          42L,
                          verify,
                          null);
                  if (listener != null) {
                    loop.listener(listener);
                  }
                  return new Object[] {loop.run(), rep};
                }
              }));
    }
    List<Object[]> out = new ArrayList<>();
    ExecutionException failure = null;
    for (Future<Object[]> f : fs) {
      try {
        out.add(f.get(60, TimeUnit.SECONDS));
      } catch (ExecutionException e) {
        failure = failure == null ? e : failure;
      }
    }
    MeshAllReduceTest.closeAll(servers);
    if (failure != null) {
      throw failure;
    }
    return out;
  }

  static SoftmaxRegressionReplica singleProcess(long seed, int examples, int g, int epochs) {
    SoftmaxRegressionReplica rep = replica(seed, examples);
    new DataParallelLoop(rep, GradientReducer.LOCAL, g, epochs, null, 0, 42L, false, null).run();
    return rep;
  }

  @Test
  void workersStayBitIdenticalAndMatchOneProcessWithTheGlobalBatch() throws Exception {
    for (int n : new int[] {2, 3}) {
      // 1010 examples, batches of 25: 41 batches, the last of 10; steps of n batches.
      List<Object[]> res = runWorkers(n, n, 3, null, 0, true, r -> replica(11L, 1010), null);
      DataParallelLoop.Result r0 = (DataParallelLoop.Result) res.get(0)[0];
      assertThat(r0.globalStepsRun()).isEqualTo(3L * ((41 + n - 1) / n));
      for (Object[] o : res) {
        DataParallelLoop.Result r = (DataParallelLoop.Result) o[0];
        assertThat(r.stepChecksums()).containsExactly(r0.stepChecksums());
        assertThat(r.finalChecksum()).isEqualTo(r0.finalChecksum());
      }
      SoftmaxRegressionReplica dist = (SoftmaxRegressionReplica) res.get(0)[1];
      SoftmaxRegressionReplica single = singleProcess(11L, 1010, n, 3);
      float[] a = dist.parameters();
      float[] b = single.parameters();
      for (int i = 0; i < a.length; i++) {
        assertThat(a[i]).as("parameter %d with %d workers", i, n).isCloseTo(b[i], within(b[i]));
      }
      assertThat(dist.accuracy()).isGreaterThan(0.85);
      assertThat(Math.abs(dist.accuracy() - single.accuracy())).isLessThan(0.01);
    }
  }

  /** Documented tolerance: 1e-4 absolute plus 1e-3 relative. */
  static org.assertj.core.data.Offset<Float> within(float ref) {
    return org.assertj.core.data.Offset.offset(1e-4f + 1e-3f * Math.abs(ref));
  }

  @Test
  void aCrashedRunResumesFromTheLastCheckpointToTheSameParameters(@TempDir Path tmp)
      throws Exception {
    Path clean = tmp.resolve("clean");
    List<Object[]> ref = runWorkers(2, 2, 2, clean, 4, false, r -> replica(3L, 500), null);
    long want = ((DataParallelLoop.Result) ref.get(0)[0]).finalChecksum();
    // 500/25 = 20 batches, 10 steps per epoch, 20 in all; rank 1 dies after global step 13.
    Path crashed = tmp.resolve("crashed");
    assertThatThrownBy(
            () ->
                runWorkers(
                    2,
                    2,
                    2,
                    crashed,
                    4,
                    false,
                    r -> replica(3L, 500),
                    (rank, e, s, g, c) -> {
                      if (rank == 1 && g == 13) {
                        throw new IllegalStateException("injected crash");
                      }
                    }))
        // Whichever worker's failure is seen first: the crash, or the peer losing it.
        .hasMessageMatching(
            "(?s).*(injected crash|rank 1 \\(127.0.0.1:\\d+\\) closed its connection).*");
    assertThat(new Checkpoints(crashed).list())
        .extracting(p -> p.getFileName().toString())
        .contains("step-000000000012.ckpt")
        .doesNotContain("step-000000000020.ckpt");
    List<Object[]> resumed = runWorkers(2, 2, 2, crashed, 4, false, r -> replica(3L, 500), null);
    DataParallelLoop.Result r0 = (DataParallelLoop.Result) resumed.get(0)[0];
    assertThat(r0.resumedFromGlobalStep()).isEqualTo(12L);
    assertThat(r0.globalStepsRun()).isEqualTo(8L);
    assertThat(r0.finalChecksum()).isEqualTo(want);
    // Resuming a finished run does nothing and keeps the result.
    List<Object[]> again = runWorkers(2, 2, 2, crashed, 4, false, r -> replica(3L, 500), null);
    assertThat(((DataParallelLoop.Result) again.get(1)[0]).globalStepsRun()).isZero();
    assertThat(((DataParallelLoop.Result) again.get(1)[0]).finalChecksum()).isEqualTo(want);
    // A different worker count with the same global batch resumes too, up to float rounding.
    assertThatThrownBy(
            () -> new Checkpoints(crashed).restoreLatest(4, 42L, replica(3L, 500).stateArrays()))
        .hasMessageContaining("belongs to another training job");
  }

  @Test
  void verificationCatchesDivergingReplicas() {
    assertThatThrownBy(
            () -> runWorkers(2, 2, 1, null, 0, true, r -> replica(r == 0 ? 1L : 2L, 100), null))
        .hasMessageContaining("replicas diverged after global step 1")
        .hasMessageContaining("rank 1 (127.0.0.1:");
  }

  @Test
  void emptyDataRunsNoSteps() throws Exception {
    List<Object[]> res = runWorkers(2, 2, 2, null, 0, true, r -> replica(1L, 0), null);
    assertThat(((DataParallelLoop.Result) res.get(0)[0]).globalStepsRun()).isZero();
    assertThatThrownBy(
            () ->
                new DataParallelLoop(
                    replica(1L, 10), GradientReducer.LOCAL, 0, 1, null, 0, 1L, false, null))
        .hasMessageContaining("positive multiple of the worker count 1");
  }
}
