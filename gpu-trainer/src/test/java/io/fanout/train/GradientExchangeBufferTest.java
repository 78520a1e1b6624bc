package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.dist.MeshAllReduce;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CheckingBackend;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.HostFloats;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Gradient exchange through the backend's host buffer ({@link
 * io.fanout.tensor.Backend#allocHostFloats}): the all-reduce works on a buffer read by absolute
 * index (direct memory, as a GPU's pinned buffer is) with the same bits as on a heap array, and
 * data-parallel trainers exchange through one buffer per trainer, allocated once, closed with the
 * trainer, and end with bit-identical replicas.
 */
class GradientExchangeBufferTest {
  private static final ExecutorService POOL = Executors.newFixedThreadPool(3);

  @AfterAll
  static void stop() {
    POOL.shutdownNow();
  }

  private static float value(int step, int rank, int i) {
    // Values of mixed magnitude and sign, so the rank order of the sum matters.
    int h = (step * 7919 + rank * 104729 + i * 31) * 0x9E3779B1;
    return (h >> 8) * 0x1p-20f * (i % 5 == 0 ? 1e4f : 1f);
  }

  private static List<ServerSocketChannel> servers(int n) throws Exception {
    List<ServerSocketChannel> s = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      s.add(MeshAllReduce.listen("127.0.0.1", 0));
    }
    return s;
  }

  @Test
  void directBufferMeanIsBitIdenticalToTheArrayMean() throws Exception {
    int[] lengths = {1, 2, 7, 1000, 4099};
    for (int world = 2; world <= 3; world++) {
      List<ServerSocketChannel> servers = servers(world);
      List<String> eps = new ArrayList<>();
      for (ServerSocketChannel s : servers) {
        eps.add(MeshAllReduce.endpointOf("127.0.0.1", s));
      }
      List<Future<float[][]>> fs = new ArrayList<>();
      for (int r = 0; r < world; r++) {
        int rank = r;
        fs.add(
            POOL.submit(
                () -> {
                  float[][] out = new float[lengths.length * 2][];
                  try (MeshAllReduce ar =
                      MeshAllReduce.connect(rank, eps, servers.get(rank), 3L, 20_000)) {
                    for (int k = 0; k < lengths.length; k++) {
                      int len = lengths[k];
                      float[] a = new float[len + 3]; // longer than the exchanged range
                      FloatBuffer d =
                          ByteBuffer.allocateDirect(4 * (len + 3))
                              .order(ByteOrder.nativeOrder())
                              .asFloatBuffer();
                      for (int i = 0; i < len + 3; i++) {
                        a[i] = value(k, rank, i);
                        d.put(i, value(k, rank, i));
                      }
                      ar.allReduceMean(a, len);
                      ar.allReduceMean(d, len);
                      float[] got = new float[len + 3];
                      d.get(0, got);
                      out[2 * k] = a;
                      out[2 * k + 1] = got;
                    }
                  }
                  return out;
                }));
      }
      List<float[][]> got = new ArrayList<>();
      for (Future<float[][]> f : fs) {
        got.add(f.get(60, TimeUnit.SECONDS));
      }
      for (ServerSocketChannel s : servers) {
        s.close();
      }
      for (int k = 0; k < lengths.length; k++) {
        int len = lengths[k];
        for (int r = 0; r < world; r++) {
          float[] a = got.get(r)[2 * k];
          float[] d = got.get(r)[2 * k + 1];
          for (int i = 0; i < len + 3; i++) {
            float sum = 0;
            for (int p = 0; p < world; p++) {
              sum += value(k, p, i);
            }
            float want = i < len ? sum / world : value(k, r, i); // beyond the range: untouched
            assertThat(Float.floatToRawIntBits(a[i]))
                .as("world %d length %d rank %d element %d (array)", world, len, r, i)
                .isEqualTo(Float.floatToRawIntBits(want));
            assertThat(Float.floatToRawIntBits(d[i]))
                .as("world %d length %d rank %d element %d (direct buffer)", world, len, r, i)
                .isEqualTo(Float.floatToRawIntBits(want));
          }
        }
      }
    }
  }

  /** A reducer that records the buffers it is given and refuses the heap-array entry point. */
  private static final class BufferOnly implements GradientReducer {
    final MeshAllReduce mesh;
    final Map<FloatBuffer, Boolean> seen = new IdentityHashMap<>();
    int calls;

    BufferOnly(MeshAllReduce mesh) {
      this.mesh = mesh;
    }

    @Override
    public void allReduceMean(float[] gradients, int length) {
      throw new AssertionError("the trainer exchanged gradients through a heap array of its own");
    }

    @Override
    public void allReduceMean(FloatBuffer gradients, int length) {
      seen.put(gradients, true);
      calls++;
      mesh.allReduceMean(gradients, length);
    }

    @Override
    public int worldSize() {
      return mesh.worldSize();
    }

    @Override
    public int rank() {
      return mesh.rank();
    }
  }

  private record Replica(float[] params, int buffers, int calls, long unclosed, long downloaded) {}

  @Test
  void trainersExchangeThroughOneHostBufferAndStayBitIdentical(@TempDir Path dir) throws Exception {
    TestData d = TestData.random(300, 5, 12, 11);
    int[] train = d.vertices.ofSplit(StoreLayout.SPLIT_TRAIN);
    ModelConfig cfg =
        new ModelConfig("sage", d.features.dim(), 16, d.classes, 2, 0.5f, "relu", "l2");
    TrainOptions opts = new TrainOptions(2, 0.01f, 5e-4f, LrSchedule.parse("constant"), 3L);
    int workers = 2;
    List<ServerSocketChannel> servers = servers(workers);
    List<String> eps = new ArrayList<>();
    for (ServerSocketChannel s : servers) {
      eps.add(MeshAllReduce.endpointOf("127.0.0.1", s));
    }
    List<Future<Replica>> fs = new ArrayList<>();
    for (int r = 0; r < workers; r++) {
      int rank = r;
      fs.add(
          POOL.submit(
              () -> {
                CheckingBackend be = new CheckingBackend(new CpuBackend());
                GnnModel m = new GnnModel(cfg, be);
                BufferOnly reducer;
                long downloaded;
                try (MeshAllReduce ar =
                    MeshAllReduce.connect(rank, eps, servers.get(rank), 5L, 60_000)) {
                  reducer = new BufferOnly(ar);
                  try (Trainer t = new Trainer(m, opts, reducer)) {
                    SampledEpochs all =
                        new SampledEpochs(
                            d.csr,
                            d.vertices,
                            d.features,
                            train,
                            new int[] {5, 5},
                            16,
                            opts.seed(),
                            true,
                            cfg.featureNorm(),
                            1);
                    t.fit(
                        new ShardedEpochData(all, rank, workers),
                        null,
                        dir.resolve("r" + rank),
                        false,
                        Map.of(),
                        null,
                        0);
                    downloaded = be.traffic().downloadedBytes();
                  }
                }
                float[] p = m.params();
                m.close();
                long unclosed = be.unclosed();
                be.close();
                return new Replica(p, reducer.seen.size(), reducer.calls, unclosed, downloaded);
              }));
    }
    Replica r0 = fs.get(0).get(300, TimeUnit.SECONDS);
    Replica r1 = fs.get(1).get(300, TimeUnit.SECONDS);
    for (ServerSocketChannel s : servers) {
      s.close();
    }
    for (Replica r : List.of(r0, r1)) {
      assertThat(r.calls()).as("all-reduce calls").isPositive();
      assertThat(r.buffers()).as("one host buffer for every step").isEqualTo(1);
      assertThat(r.unclosed()).as("tensors and host buffers left open").isZero();
      // Each exchange moves the gradients down (4 bytes each) besides the loss and metrics.
      assertThat(r.downloaded()).isGreaterThanOrEqualTo(4L * r.params().length * r.calls());
    }
    assertThat(r0.params()).isEqualTo(r1.params());
  }

  @Test
  void theCheckingBackendCountsAndClosesItsHostBuffers() {
    CheckingBackend be = new CheckingBackend(new CpuBackend());
    long open = CheckingBackend.openBackends();
    var t = be.allocFloat(4);
    HostFloats h = be.allocHostFloats(4);
    h.floats().put(0, new float[] {1, 2, 3, 4});
    be.upload(h, 0, t, 0, 4);
    h.floats().put(0, new float[4]);
    be.download(t, 1, h, 0, 3);
    assertThat(h.floats().get(0)).isEqualTo(2f);
    assertThat(h.floats().get(2)).isEqualTo(4f);
    assertThat(be.traffic()).isEqualTo(new CheckingBackend.Traffic(16, 12));
    assertThat(be.unclosed()).isEqualTo(2);
    h.close();
    be.free(t);
    assertThat(be.unclosed()).isZero();
    be.close();
    assertThat(CheckingBackend.openBackends()).isEqualTo(open - 1);
    CheckingBackend leaky = new CheckingBackend(new CpuBackend());
    leaky.allocHostFloats(2);
    org.assertj.core.api.Assertions.assertThatThrownBy(leaky::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("1 host buffer(s)");
  }
}
