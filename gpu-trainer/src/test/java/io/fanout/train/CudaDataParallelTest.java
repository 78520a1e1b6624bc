package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.dist.MeshAllReduce;
import io.fanout.dist.MeshReplicas;
import io.fanout.dist.ParameterChecksum;
import io.fanout.nn.GnnModel;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.cuda.CudaBackend;
import io.fanout.tensor.cuda.GpuTests;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Data-parallel training on CUDA: two replicas, each with its own backend and stream on device 0
 * (or on devices 0 and 1 where there are two), exchange gradients through the backends' pinned host
 * buffers over {@link MeshAllReduce} on cora. The replicas end bit-identical, reach the trainer's
 * accuracy floor, and each backend's device pool is clean. Skipped, with the reason printed, where
 * no CUDA device exists.
 */
@Tag("gpu")
class CudaDataParallelTest {
  /** What one replica ends with. */
  private record Replica(float[] params, double testAccuracy) {}

  @Test
  void twoCudaReplicasStayBitIdenticalAndMeetTheAccuracyFloor(@TempDir Path dir) throws Exception {
    GpuTests.assumeDevice();
    CoraDataParallel cora = new CoraDataParallel();
    TestData d = cora.d;
    int workers = 2;
    int devices = io.fanout.tensor.cuda.CudaDriver.deviceCount();
    List<Replica> rs =
        MeshReplicas.run(
            workers,
            9L,
            300,
            (ar, rank) -> {
              CudaBackend be = new CudaBackend(rank % devices);
              try {
                Replica out;
                try (GnnModel m = new GnnModel(cora.cfg, be)) {
                  Trainer t = new Trainer(m, cora.opts, ar);
                  cora.fit(t, rank, workers, dir.resolve("rank-" + rank));
                  float[] logits = FullGraphInference.logits(m, d.csr, d.features, 4096);
                  double acc =
                      Evaluation.accuracy(logits, d.classes, d.vertices, StoreLayout.SPLIT_TEST)
                          .value();
                  out = new Replica(m.params(), acc);
                  t.close();
                }
                be.pool().checkNoLeaks();
                return out;
              } finally {
                be.close();
              }
            });
    Replica r0 = rs.get(0);
    Replica r1 = rs.get(1);
    assertThat(ParameterChecksum.of(r1.params(), r1.params().length))
        .isEqualTo(ParameterChecksum.of(r0.params(), r0.params().length));
    assertThat(r1.params()).isEqualTo(r0.params());
    System.out.println("cora 2-replica CUDA test accuracy " + r0.testAccuracy());
    assertThat(r0.testAccuracy()).isGreaterThanOrEqualTo(0.79);
  }
}
