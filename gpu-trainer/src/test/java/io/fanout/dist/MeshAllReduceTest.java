package io.fanout.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class MeshAllReduceTest {
  private static ExecutorService pool;

  @BeforeAll
  static void startPool() {
    pool = Executors.newCachedThreadPool();
  }

  @AfterAll
  static void stopPool() {
    pool.shutdownNow();
  }

  /** Gradients whose magnitudes span many orders, so that the summation order shows. */
  static float[] gradients(long seed, int rank, int length) {
    SplittableRandom r = new SplittableRandom(seed * 1_000_003L + rank);
    float[] g = new float[length + 3]; // longer than length: the tail must stay untouched
    for (int i = 0; i < g.length; i++) {
      g[i] = (float) (r.nextGaussian() * Math.pow(10, r.nextInt(-6, 7)));
    }
    return g;
  }

  static float[] reference(float[][] in, int length) {
    float[] out = new float[length];
    for (int i = 0; i < length; i++) {
      float s = in[0][i];
      for (int p = 1; p < in.length; p++) {
        s += in[p][i];
      }
      out[i] = s / in.length;
    }
    return out;
  }

  static List<ServerSocketChannel> servers(int n) throws Exception {
    List<ServerSocketChannel> s = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      s.add(MeshAllReduce.listen("127.0.0.1", 0));
    }
    return s;
  }

  static List<String> endpoints(List<ServerSocketChannel> servers) throws Exception {
    List<String> eps = new ArrayList<>();
    for (ServerSocketChannel s : servers) {
      eps.add(MeshAllReduce.endpointOf("127.0.0.1", s));
    }
    return eps;
  }

  static void closeAll(List<ServerSocketChannel> servers) throws Exception {
    for (ServerSocketChannel s : servers) {
      s.close();
    }
  }

  @Test
  void meanEqualsTheRankOrderReferenceAndIsBitIdentical() throws Exception {
    int[] lengths = {0, 1, 2, 3, 5, 7, 64, 1000, 4099, 100_003};
    for (int n = 1; n <= 4; n++) {
      List<ServerSocketChannel> servers = servers(n);
      List<String> eps = endpoints(servers);
      int world = n;
      List<Future<float[][]>> results = new ArrayList<>();
      for (int r = 0; r < n; r++) {
        int rank = r;
        results.add(
            pool.submit(
                () -> {
                  float[][] out = new float[lengths.length * 2][];
                  try (MeshAllReduce ar =
                      MeshAllReduce.connect(rank, eps, servers.get(rank), 7L, 10_000)) {
                    assertThat(ar.worldSize()).isEqualTo(world);
                    assertThat(ar.rank()).isEqualTo(rank);
                    // Twice over the lengths: buffers grow and are reused.
                    for (int k = 0; k < out.length; k++) {
                      int len = lengths[k % lengths.length];
                      float[] g = gradients(k, rank, len);
                      ar.allReduceMean(g, len);
                      out[k] = g;
                    }
                  }
                  return out;
                }));
      }
      float[][][] got = new float[n][][];
      for (int r = 0; r < n; r++) {
        got[r] = results.get(r).get(60, TimeUnit.SECONDS);
      }
      closeAll(servers);
      for (int k = 0; k < lengths.length * 2; k++) {
        int len = lengths[k % lengths.length];
        float[][] in = new float[n][];
        for (int r = 0; r < n; r++) {
          in[r] = gradients(k, r, len);
        }
        float[] ref = reference(in, len);
        for (int r = 0; r < n; r++) {
          float[] g = got[r][k];
          for (int i = 0; i < len; i++) {
            if (Float.floatToRawIntBits(g[i]) != Float.floatToRawIntBits(ref[i])) {
              throw new AssertionError(
                  "N="
                      + n
                      + " length="
                      + len
                      + " rank="
                      + r
                      + " element "
                      + i
                      + ": "
                      + g[i]
                      + " != reference "
                      + ref[i]);
            }
          }
          for (int i = len; i < g.length; i++) {
            assertThat(g[i]).as("element past length is untouched").isEqualTo(in[r][i]);
          }
        }
      }
    }
  }

  @Test
  void allGatherReturnsEveryRanksValue() throws Exception {
    int n = 3;
    List<ServerSocketChannel> servers = servers(n);
    List<String> eps = endpoints(servers);
    List<Future<long[]>> results = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      int rank = r;
      results.add(
          pool.submit(
              () -> {
                try (MeshAllReduce ar =
                    MeshAllReduce.connect(rank, eps, servers.get(rank), 1L, 10_000)) {
                  ar.allReduceMean(new float[10], 10);
                  return ar.allGather(100L + rank * rank);
                }
              }));
    }
    for (int r = 0; r < n; r++) {
      assertThat(results.get(r).get(30, TimeUnit.SECONDS)).containsExactly(100L, 101L, 104L);
    }
    closeAll(servers);
  }

  @Test
  void aPeerThatNeverConnectsFailsWithATimeoutNamingIt() throws Exception {
    int n = 3;
    List<ServerSocketChannel> servers = servers(n);
    List<String> eps = endpoints(servers);
    // Rank 2 never runs: ranks 0 and 1 wait for it to connect.
    List<Future<?>> results = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      int rank = r;
      results.add(
          pool.submit(
              () -> MeshAllReduce.connect(rank, eps, servers.get(rank), 1L, 1_500).close()));
    }
    for (Future<?> f : results) {
      assertThatThrownBy(() -> f.get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(PeerException.class)
          .cause()
          .hasMessageContaining("timed out")
          .hasMessageContaining("rank 2 (" + eps.get(2) + ")");
    }
    closeAll(servers);
  }

  @Test
  void aLowerRankThatIsNotListeningFailsNamingIt() throws Exception {
    List<ServerSocketChannel> servers = servers(2);
    List<String> eps = endpoints(servers);
    servers.get(0).close(); // nothing listens at rank 0's endpoint any more
    assertThatThrownBy(() -> MeshAllReduce.connect(1, eps, servers.get(1), 1L, 800))
        .isInstanceOf(PeerException.class)
        .hasMessageContaining("could not connect to rank 0 (" + eps.get(0) + ")");
    closeAll(servers);
  }

  @Test
  void aPeerThatClosesMidStepFailsTheOthers() throws Exception {
    int n = 3;
    List<ServerSocketChannel> servers = servers(n);
    List<String> eps = endpoints(servers);
    List<Future<?>> survivors = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      int rank = r;
      Future<?> f =
          pool.submit(
              () -> {
                MeshAllReduce ar = MeshAllReduce.connect(rank, eps, servers.get(rank), 1L, 20_000);
                float[] g = new float[50_000];
                ar.allReduceMean(g, g.length);
                if (rank == 2) {
                  ar.close(); // dies before the second step
                  return null;
                }
                try (ar) {
                  ar.allReduceMean(g, g.length);
                }
                return null;
              });
      if (rank < 2) {
        survivors.add(f);
      }
    }
    for (Future<?> f : survivors) {
      // Well under the 20 s timeout: a closed peer is noticed at once.
      assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(PeerException.class)
          .cause()
          .hasMessageContaining("closed its connection");
    }
    closeAll(servers);
  }

  @Test
  void aSilentPeerTimesOutNamingIt() throws Exception {
    int n = 2;
    List<ServerSocketChannel> servers = servers(n);
    List<String> eps = endpoints(servers);
    Future<MeshAllReduce> silent =
        pool.submit(() -> MeshAllReduce.connect(1, eps, servers.get(1), 1L, 60_000));
    try (MeshAllReduce ar = MeshAllReduce.connect(0, eps, servers.get(0), 1L, 700)) {
      float[] g = new float[100];
      assertThatThrownBy(() -> ar.allReduceMean(g, g.length))
          .isInstanceOf(PeerException.class)
          .hasMessageContaining("timed out after 700 ms")
          .hasMessageContaining("rank 1 (" + eps.get(1) + ")");
    }
    silent.get(10, TimeUnit.SECONDS).close();
    closeAll(servers);
  }

  @Test
  void mismatchedLengthsFailClearly() throws Exception {
    List<ServerSocketChannel> servers = servers(2);
    List<String> eps = endpoints(servers);
    List<Future<?>> fs = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      int rank = r;
      fs.add(
          pool.submit(
              () -> {
                try (MeshAllReduce ar =
                    MeshAllReduce.connect(rank, eps, servers.get(rank), 1L, 10_000)) {
                  ar.allReduceMean(new float[20], 10 + rank);
                }
                return null;
              }));
    }
    for (Future<?> f : fs) {
      assertThatThrownBy(() -> f.get(30, TimeUnit.SECONDS))
          .cause()
          .hasMessageContaining("replicas must have the same model");
    }
    closeAll(servers);
  }

  @Test
  void aConnectionFromAnotherSessionIsIgnored() throws Exception {
    List<ServerSocketChannel> servers = servers(2);
    List<String> eps = endpoints(servers);
    Future<MeshAllReduce> rank0 =
        pool.submit(() -> MeshAllReduce.connect(0, eps, servers.get(0), 5L, 10_000));
    // A stray worker of an earlier attempt (session 4) says hello first.
    try (java.nio.channels.SocketChannel stray =
        java.nio.channels.SocketChannel.open(
            new java.net.InetSocketAddress("127.0.0.1", servers.get(0).socket().getLocalPort()))) {
      stray.write(MeshWire.header(MeshWire.KIND_HELLO, 1, 2, 4L));
      try (MeshAllReduce r1 = MeshAllReduce.connect(1, eps, servers.get(1), 5L, 10_000);
          MeshAllReduce r0 = rank0.get(20, TimeUnit.SECONDS)) {
        float[] a = {1f, 2f, 3f};
        Future<?> f = pool.submit(() -> r0.allReduceMean(new float[] {3f, 4f, 5f}, 3));
        r1.allReduceMean(a, 3);
        f.get(20, TimeUnit.SECONDS);
        assertThat(a).containsExactly(2f, 3f, 4f);
      }
    }
    closeAll(servers);
  }

  @Test
  void badEndpointsAreRejected() {
    assertThatThrownBy(() -> MeshAllReduce.connect(0, List.of("nohostport"), null, 1L, 100))
        .hasMessageContaining("endpoint of rank 0 is 'nohostport', expected host:port");
    assertThatThrownBy(() -> MeshAllReduce.connect(0, List.of("h:0", "h:99999"), null, 1L, 100))
        .hasMessageContaining("rank 0");
    assertThatThrownBy(() -> MeshAllReduce.connect(3, List.of("h:1"), null, 1L, 100))
        .hasMessageContaining("rank 3 is outside [0, 1)");
  }
}
