package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.nn.Block;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.sample.MiniBatch;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.Backends;
import io.fanout.tensor.CheckingBackend;
import io.fanout.tensor.CpuBackend;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole training loop in checking mode, where backend tensors refuse any host access but upload
 * and download: a step moves in exactly its batch (the blocks' CSR arrays, the input features, the
 * seeds' labels) and out exactly the loss (a double) and the correct count (an int), plus the
 * gradients down and back up when a reducer exchanges them. Training is bit-identical to the plain
 * CPU backend, and closing the trainer and model frees every tensor.
 */
class CheckedTrainingTest {
  @TempDir Path tmp;

  private static final long LOSS_AND_METRICS = Double.BYTES + Integer.BYTES;

  /** A reducer of one replica that still exchanges (as a mesh of one would). */
  private static final GradientReducer EXCHANGING =
      new GradientReducer() {
        @Override
        public void allReduceMean(float[] gradients, int length) {}

        @Override
        public int worldSize() {
          return 1;
        }

        @Override
        public int rank() {
          return 0;
        }
      };

  /** The bytes a batch uploads: blocks, features (CSR when {@code sparse}) and labels. */
  static long batchBytes(TrainBatch b, boolean sparse) {
    MiniBatch mb = b.batch();
    long ints = mb.numSeeds();
    Block[] blocks = Block.of(mb);
    for (Block k : blocks) {
      ints += k.numDst() + 1 + k.indptr()[k.numDst()];
    }
    int n = blocks[0].numSrc() * b.dim();
    if (!sparse) {
      return 4 * (ints + n);
    }
    long nnz = 0;
    for (int i = 0; i < n; i++) {
      nnz += b.features()[i] != 0f ? 1 : 0;
    }
    return 4 * (ints + blocks[0].numSrc() + 1 + 2 * nnz);
  }

  private static SampledEpochs data(TestData d, ModelConfig cfg) {
    return new SampledEpochs(
        d.csr,
        d.vertices,
        d.features,
        d.vertices.ofSplit(StoreLayout.SPLIT_TRAIN),
        new int[] {10, 5},
        32,
        5,
        true,
        cfg.featureNorm(),
        1);
  }

  private static void stepsMoveOnlyTheBatchAndTheLoss(TestData d, boolean sparse) {
    ModelConfig cfg =
        new ModelConfig("sage", d.features.dim(), 16, d.classes, 2, 0.5f, "relu", "l2");
    CheckingBackend be = new CheckingBackend(new CpuBackend());
    GnnModel model = new GnnModel(cfg, be);
    model.init(5);
    long gradBytes = 4L * model.numParams();
    TrainOptions opts = new TrainOptions(1, 0.01f, 5e-4f, LrSchedule.CONSTANT, 5);
    try (Trainer local = new Trainer(model, opts, GradientReducer.LOCAL);
        Trainer exchanging = new Trainer(model, opts, EXCHANGING);
        BatchStream s = data(d, cfg).open(0)) {
      int steps = 0;
      TrainBatch b;
      while ((b = s.next()) != null && steps < 4) {
        boolean exchange = steps % 2 == 1;
        be.resetTraffic();
        (exchange ? exchanging : local).step(b, 0, 0.01f);
        long in = batchBytes(b, sparse) + (exchange ? gradBytes : 0);
        long out = LOSS_AND_METRICS + (exchange ? gradBytes : 0);
        assertThat(be.traffic())
            .as("step %d", steps)
            .isEqualTo(new CheckingBackend.Traffic(in, out));
        s.recycle(b);
        steps++;
      }
      assertThat(steps).isEqualTo(4);
    }
    model.close();
    assertThat(be.liveTensors()).isZero();
  }

  @Test
  void coraStepsUploadTheCsrFeaturesAndDownloadOnlyLossAndMetrics() throws Exception {
    stepsMoveOnlyTheBatchAndTheLoss(TestData.load("cora"), true);
  }

  @Test
  void denseStepsUploadTheFeatureMatrix() {
    stepsMoveOnlyTheBatchAndTheLoss(TestData.random(400, 5, 12, 3), false);
  }

  @Test
  void fitInCheckingModeMatchesTheCpuBackendBitForBit() throws Exception {
    TestData d = TestData.load("cora");
    ModelConfig cfg =
        new ModelConfig("gcn", d.features.dim(), 16, d.classes, 2, 0.5f, "relu", "l1");
    TrainOptions opts = new TrainOptions(2, 0.01f, 5e-4f, LrSchedule.COSINE, 5);
    String prop = System.getProperty("fanout.backend");
    System.setProperty("fanout.backend", "cpu-checked");
    GnnModel checked;
    try {
      checked = new GnnModel(cfg, Backends.select());
    } finally {
      if (prop == null) {
        System.clearProperty("fanout.backend");
      } else {
        System.setProperty("fanout.backend", prop);
      }
    }
    assertThat(checked.backend()).isInstanceOf(CheckingBackend.class);
    GnnModel plain = new GnnModel(cfg, new CpuBackend());
    for (GnnModel m : new GnnModel[] {checked, plain}) {
      try (Trainer t = new Trainer(m, opts, GradientReducer.LOCAL)) {
        t.fit(
            data(d, cfg),
            data(d, cfg),
            tmp.resolve(m == plain ? "plain" : "checked"),
            false,
            Map.of(),
            null,
            0);
      }
    }
    assertThat(checked.params()).isEqualTo(plain.params());
    assertThat(Checkpoint.read(tmp.resolve("checked")).secondMoment())
        .isEqualTo(Checkpoint.read(tmp.resolve("plain")).secondMoment());
  }
}
