package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints written by today's trainer are bit-identical to those of the host-array trainer that
 * preceded the tensor-handle backend: the SHA-256 of parameters and Adam moments after training was
 * recorded with that code (commit 3cb6d07) and must not change. Covers both model kinds, the dense
 * input path (random features) and the sparse one (cora's bag-of-words features).
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
            new GnnModel(cfg, new CpuBackend()),
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
    TestData d = TestData.random(600, 5, 12, 7);
    assertThat(
            train(
                d,
                new ModelConfig("sage", 12, 16, 3, 2, 0.5f, "relu", "l2"),
                3,
                32,
                tmp.resolve("sage")))
        .isEqualTo("2a2a96857e8ff8cce218f0fdfd51287ba92685e6286b5295f99bafc37d555578");
    assertThat(
            train(
                d,
                new ModelConfig("gcn", 12, 16, 3, 2, 0.5f, "elu", "none"),
                3,
                32,
                tmp.resolve("gcn")))
        .isEqualTo("fdfee463f25f26846d90fd86a0d2be4b83f1046c06d3d71b8dd6e763584a6aad");
  }

  @Test
  void sparseCoraInputsTrainToTheRecordedParameters() throws Exception {
    TestData d = TestData.load("cora");
    int dim = d.features.dim();
    assertThat(
            train(
                d,
                new ModelConfig("sage", dim, 32, d.classes, 2, 0.5f, "relu", "l1"),
                2,
                64,
                tmp.resolve("sage")))
        .isEqualTo("49c4251601ca99fa8e53709ae19b86c596e7d76c0d1371d1294ab24f895858ee");
    assertThat(
            train(
                d,
                new ModelConfig("gcn", dim, 32, d.classes, 2, 0.5f, "relu", "none"),
                2,
                64,
                tmp.resolve("gcn")))
        .isEqualTo("e7ac40d78059c6c94b68d36ec70f669d2897c38baaddf085b4ac80f7bda1997d");
  }
}
