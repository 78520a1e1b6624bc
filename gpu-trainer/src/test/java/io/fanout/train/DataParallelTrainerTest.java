package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.dist.MeshAllReduce;
import io.fanout.dist.MeshReplicas;
import io.fanout.dist.ParameterChecksum;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real trainer, data-parallel over {@link MeshAllReduce} between two in-process workers on
 * cora: replicas stay bit-identical and reach the trainer's accuracy floor.
 */
class DataParallelTrainerTest {
  @Test
  void twoWorkersOnCoraStayIdenticalAndMeetTheAccuracyFloor(@TempDir Path dir) throws Exception {
    TestData d = TestData.load("cora");
    int[] train = d.vertices.ofSplit(StoreLayout.SPLIT_TRAIN);
    ModelConfig cfg =
        new ModelConfig("sage", d.features.dim(), 128, d.classes, 2, 0.5f, "relu", "l2");
    TrainOptions opts = new TrainOptions(40, 0.01f, 5e-4f, LrSchedule.parse("constant"), 3L);
    int workers = 2;
    List<GnnModel> ms =
        MeshReplicas.run(
            workers,
            9L,
            300,
            (ar, rank) -> {
              GnnModel m = new GnnModel(cfg, new CpuBackend());
              Trainer t = new Trainer(m, opts, ar);
              // 140 training seeds, 4 batches of 35: two global steps of 2 x 35 per epoch.
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
                  dir,
                  false,
                  Map.of("dataset", "cora"),
                  null,
                  0);
              return m;
            });
    GnnModel m0 = ms.get(0);
    GnnModel m1 = ms.get(1);
    assertThat(ParameterChecksum.of(m1.params(), m1.numParams()))
        .isEqualTo(ParameterChecksum.of(m0.params(), m0.numParams()));
    float[] logits = FullGraphInference.logits(m0, d.csr, d.features, 4096);
    double acc = Evaluation.accuracy(logits, d.classes, d.vertices, StoreLayout.SPLIT_TEST).value();
    System.out.println("cora 2-worker test accuracy " + acc);
    assertThat(acc).isGreaterThanOrEqualTo(0.79);
    assertThat(Checkpoint.exists(dir)).isTrue();
  }
}
