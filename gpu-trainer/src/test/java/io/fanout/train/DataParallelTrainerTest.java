package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.dist.MeshAllReduce;
import io.fanout.dist.MeshReplicas;
import io.fanout.dist.ParameterChecksum;
import io.fanout.nn.GnnModel;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real trainer, data-parallel over {@link MeshAllReduce} between two in-process workers on
 * cora: replicas stay bit-identical and reach the trainer's accuracy floor.
 */
class DataParallelTrainerTest {
  @Test
  void twoWorkersOnCoraStayIdenticalAndMeetTheAccuracyFloor(@TempDir Path dir) throws Exception {
    CoraDataParallel cora = new CoraDataParallel();
    TestData d = cora.d;
    int workers = 2;
    List<GnnModel> ms =
        MeshReplicas.run(
            workers,
            9L,
            300,
            (ar, rank) -> {
              GnnModel m = new GnnModel(cora.cfg, new CpuBackend());
              // 140 training seeds, 4 batches of 35: two global steps of 2 x 35 per epoch.
              cora.fit(new Trainer(m, cora.opts, ar), rank, workers, dir);
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
