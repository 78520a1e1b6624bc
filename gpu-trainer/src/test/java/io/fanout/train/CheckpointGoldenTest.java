package io.fanout.train;

import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.store.Checksums;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Training arithmetic does not drift: the SHA-256 of parameters and Adam moments after training
 * must equal the hashes recorded from the trainer at commit a3ce581. Training runs on {@link
 * CpuBackend#portable()}, whose reference BLAS gives the same bits on every CPU (native OpenBLAS
 * picks kernels by CPU model, so hashes recorded with it hold on one machine type only). Covers
 * both model kinds, the dense input path (random features) and the sparse one (cora's bag-of-words
 * features); every mismatch is reported.
 */
class CheckpointGoldenTest {
  @TempDir Path tmp;

  static String hash(Checkpoint ck) {
    float[][] parts = {ck.params(), ck.firstMoment(), ck.secondMoment()};
    int n = 8;
    for (float[] p : parts) {
      n += 4 * p.length;
    }
    ByteBuffer buf = ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
    buf.putLong(ck.step());
    for (float[] p : parts) {
      for (float f : p) {
        buf.putInt(Float.floatToRawIntBits(f));
      }
    }
    return Checksums.sha256(buf.array());
  }

  private String train(TestData d, ModelConfig cfg, int epochs, int batch, Path dir) {
    Trainer t =
        new Trainer(
            new GnnModel(cfg, CpuBackend.portable()),
            new TrainOptions(epochs, 0.01f, 5e-4f, LrSchedule.COSINE, 3),
            GradientReducer.LOCAL);
    SampledEpochs data =
        new SampledEpochs(
            d.csr,
            d.vertices,
            d.features,
            d.vertices.ofSplit(StoreLayout.SPLIT_TRAIN),
            new int[] {5, 3},
            batch,
            3,
            true,
            cfg.featureNorm(),
            2);
    t.fit(data, null, dir, false, Map.of(), null, 0);
    return hash(Checkpoint.read(dir));
  }

  @Test
  void denseInputsTrainToTheRecordedParameters() {
    SoftAssertions softly = new SoftAssertions();
    TestData d = TestData.random(600, 5, 12, 7);
    softly
        .assertThat(
            train(
                d,
                new ModelConfig("sage", 12, 16, 3, 2, 0.5f, "relu", "l2"),
                3,
                32,
                tmp.resolve("sage")))
        .isEqualTo("e092e743415632ac014fb4aedd8334f23fc392031fd719355083e362050e6cda");
    softly
        .assertThat(
            train(
                d,
                new ModelConfig("gcn", 12, 16, 3, 2, 0.5f, "elu", "none"),
                3,
                32,
                tmp.resolve("gcn")))
        .isEqualTo("5741f2439273a7a6760f5d4b5a5233a9f4f74e63c3145f569dcb91fd36f06336");
    softly.assertAll();
  }

  @Test
  void sparseCoraInputsTrainToTheRecordedParameters() throws Exception {
    SoftAssertions softly = new SoftAssertions();
    TestData d = TestData.load("cora");
    int dim = d.features.dim();
    softly
        .assertThat(
            train(
                d,
                new ModelConfig("sage", dim, 32, d.classes, 2, 0.5f, "relu", "l1"),
                2,
                64,
                tmp.resolve("sage")))
        .isEqualTo("4b734719262d09457edca420b6e23f2544c6c7247d18e1b1f924f6f426a78247");
    softly
        .assertThat(
            train(
                d,
                new ModelConfig("gcn", dim, 32, d.classes, 2, 0.5f, "relu", "none"),
                2,
                64,
                tmp.resolve("gcn")))
        .isEqualTo("f39d55f3c6b5cdb66763410b196283a37f87fe707404d7ca2af3529642a893e8");
    softly.assertAll();
  }
}
