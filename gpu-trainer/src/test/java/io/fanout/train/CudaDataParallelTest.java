package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.dist.MeshAllReduce;
import io.fanout.dist.MeshReplicas;
import io.fanout.dist.ParameterChecksum;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.cuda.CudaBackend;
import io.fanout.tensor.cuda.GpuTests;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
    TestData d = TestData.load("cora");
    int[] train = d.vertices.ofSplit(StoreLayout.SPLIT_TRAIN);
    ModelConfig cfg =
        new ModelConfig("sage", d.features.dim(), 128, d.classes, 2, 0.5f, "relu", "l2");
    TrainOptions opts = new TrainOptions(40, 0.01f, 5e-4f, LrSchedule.parse("constant"), 3L);
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
                try (GnnModel m = new GnnModel(cfg, be)) {
                  Trainer t = new Trainer(m, opts, ar);
                  SampledEpochs all =
                      new SampledEpochs(
                          d.csr,
                          d.vertices,
                          d.features,
                          train,
                          new int[] {15, 10},
                          35,
                          opts.seed(),
                          true,
                          cfg.featureNorm(),
                          1);
                  t.fit(
                      new ShardedEpochData(all, rank, workers),
                      null,
                      dir.resolve("rank-" + rank),
                      false,
                      Map.of("dataset", "cora"),
                      null,
                      0);
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
