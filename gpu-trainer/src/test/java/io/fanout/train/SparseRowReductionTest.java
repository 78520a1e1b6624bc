package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.dist.MeshAllReduce;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Three replicas over {@link MeshAllReduce}, with overlapping rows, ids past 2^16 and one replica
 * without rows: every replica gets the same merged rows, in id order, each the sum in rank order of
 * the replicas' gradients divided by their count, as a plain reference computes them.
 */
class SparseRowReductionTest {
  private static final int DIM = 3;

  private static int[] ids(int rank) {
    return switch (rank) {
      case 0 -> new int[] {5, 70_000, 1 << 30, 2};
      case 1 -> new int[] {};
      default -> new int[] {70_000, 5, 123_456_789};
    };
  }

  private static float[] grad(int rank, int n) {
    float[] g = new float[n * DIM];
    for (int i = 0; i < g.length; i++) {
      g[i] = (rank + 1) * 0.37f + i * 0.011f - 0.05f * i * i;
    }
    return g;
  }

  @Test
  void replicasGetTheSameMergedMean() throws Exception {
    int world = 3;
    List<ServerSocketChannel> servers = new ArrayList<>();
    List<String> eps = new ArrayList<>();
    for (int r = 0; r < world; r++) {
      servers.add(MeshAllReduce.listen("127.0.0.1", 0));
      eps.add(MeshAllReduce.endpointOf("127.0.0.1", servers.get(r)));
    }
    ExecutorService pool = Executors.newFixedThreadPool(world);
    List<Future<SparseRowReduction.Rows>> fs = new ArrayList<>();
    for (int r = 0; r < world; r++) {
      int rank = r;
      fs.add(
          pool.submit(
              () -> {
                try (MeshAllReduce ar =
                    MeshAllReduce.connect(rank, eps, servers.get(rank), 4L, 60_000)) {
                  int[] ids = ids(rank);
                  return SparseRowReduction.allReduceMean(
                      ar, ids, ids.length, grad(rank, ids.length), DIM);
                }
              }));
    }
    List<SparseRowReduction.Rows> out = new ArrayList<>();
    for (Future<SparseRowReduction.Rows> f : fs) {
      out.add(f.get(60, TimeUnit.SECONDS));
    }
    pool.shutdown();
    for (ServerSocketChannel s : servers) {
      s.close();
    }
    TreeMap<Integer, float[]> want = new TreeMap<>();
    for (int r = 0; r < world; r++) {
      int[] ids = ids(r);
      float[] g = grad(r, ids.length);
      for (int i = 0; i < ids.length; i++) {
        float[] row = want.get(ids[i]);
        for (int c = 0; c < DIM; c++) {
          float share = g[i * DIM + c] / world;
          if (row == null) {
            row = new float[DIM];
            want.put(ids[i], row);
            row[c] = share;
          } else {
            row[c] += share;
          }
        }
      }
    }
    for (SparseRowReduction.Rows rows : out) {
      assertThat(rows.count()).isEqualTo(want.size());
      int k = 0;
      for (var e : want.entrySet()) {
        assertThat(rows.ids()[k]).isEqualTo(e.getKey());
        assertThat(java.util.Arrays.copyOfRange(rows.gradients(), k * DIM, (k + 1) * DIM))
            .as("row %d", e.getKey())
            .isEqualTo(e.getValue());
        k++;
      }
    }
  }
}
