package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedStoreFixtures;
import io.fanout.nn.Adam;
import io.fanout.nn.EmbeddingMode;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.typed.SimpleTypedSampler;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.nn.typed.TypedModelKind;
import io.fanout.nn.typed.TypedTestGraphs;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.TypedShardSet;
import io.fanout.store.InvalidInputException;
import io.fanout.tensor.Backend;
import io.fanout.tensor.BackendKind;
import io.fanout.tensor.Backends;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.MatmulPrecision;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train --precision} on typed stores: the CPU backends refuse tf32 and bf16 with the
 * one-type line naming the option, before any checkpoint is written; an fp32 run keeps the identity
 * of a run without the option; another precision is recorded in the checkpoint identity, so a
 * resume with another precision is refused both ways.
 */
class TypedPrecisionTest {
  private static final ArrayTypedGraph G = TypedTestGraphs.small(3);

  @TempDir Path tmp;

  private TypedTrainRequest request(
      TypedGraphStore g, Path shards, Path modelDir, BackendKind backend, MatmulPrecision p) {
    return TypedTestRuns.rgcn(g, shards, modelDir).epochs(1).backend(backend).precision(p).build();
  }

  @Test
  void cpuBackendsRefuseTensorCorePrecisionsNamingTheOption() throws Exception {
    Path store = tmp.resolve("store");
    TypedStoreFixtures.write(
        store, G, new int[][] {{10, 14}, {7, 11}, {10}}, new int[][][] {null, null, null});
    try (TypedGraphStore g = TypedGraphStore.open(store, false)) {
      Path shards = TypedTestShards.write(g, tmp.resolve("shards"), FeatureEncoding.NONE);
      for (BackendKind kind : new BackendKind[] {BackendKind.CPU, BackendKind.CPU_CHECKED}) {
        for (MatmulPrecision p :
            new MatmulPrecision[] {MatmulPrecision.TF32, MatmulPrecision.BF16}) {
          Path modelDir = tmp.resolve("m-" + kind.id() + "-" + p.id());
          String oneType; // the line the one-type trainer's backend gives
          try (Backend be = Backends.select(kind, -1)) {
            oneType = catchThrowable(() -> be.matmulPrecision(p)).getMessage();
          }
          assertThat(oneType)
              .startsWith("--precision " + p.id() + " needs the cuda backend")
              .endsWith("(pass --precision fp32)");
          assertThatThrownBy(
                  () ->
                      TypedTrainRun.train(request(g, shards, modelDir, kind, p), null, () -> false))
              .isInstanceOf(InvalidInputException.class)
              .hasMessage(oneType);
          assertThat(TypedCheckpoint.exists(modelDir)).isFalse();
        }
      }
      // fp32 trains on the CPU
      Path fp32 = tmp.resolve("m-fp32");
      TypedTrainRun.train(
          request(g, shards, fp32, BackendKind.CPU, MatmulPrecision.FP32), null, () -> false);
      assertThat(TypedCheckpoint.exists(fp32)).isTrue();
    }
  }

  @Test
  void fp32KeepsTheIdentityAndOtherPrecisionsAreRecorded() {
    TypedTrainOptions plain = new TypedTrainOptions(2, 2, 0.02f, 1e-4f, 5, LrSchedule.COSINE);
    TypedTrainOptions fp32 =
        new TypedTrainOptions(2, 2, 0.02f, 1e-4f, 5, LrSchedule.COSINE, MatmulPrecision.FP32);
    assertThat(fp32.identity()).isEqualTo(plain.identity());
    assertThat(fp32.identity()).doesNotContainKey("identity.precision");
    for (MatmulPrecision p : new MatmulPrecision[] {MatmulPrecision.TF32, MatmulPrecision.BF16}) {
      Map<String, String> id =
          new TypedTrainOptions(2, 2, 0.02f, 1e-4f, 5, LrSchedule.COSINE, p).identity();
      assertThat(id).containsEntry("identity.precision", p.id());
      Map<String, String> rest = new java.util.LinkedHashMap<>(id);
      rest.remove("identity.precision");
      assertThat(rest).isEqualTo(plain.identity());
    }
  }

  /**
   * Trains one epoch on the CPU recording {@code p} in the identity (the CPU computes fp32; only
   * the recorded identity matters here), into {@code modelDir}.
   */
  private static void trainRecording(Path shards, Path modelDir, MatmulPrecision p) {
    TypedModelConfig cfg =
        TypedModelConfig.of(G.schema(), 0, TypedModelKind.RGCN, 8, 2, 0.2f, 0, EmbeddingMode.AUTO);
    TypedTrainOptions opts = new TypedTrainOptions(1, 2, 0.02f, 1e-4f, 5, LrSchedule.CONSTANT, p);
    SimpleTypedSampler s = new SimpleTypedSampler(G, 0, new int[] {3, 2}, 9);
    TypedSampler sampler = s::sample;
    try (TypedModel m = new TypedModel(cfg, new CpuBackend());
        TypedTrainer t =
            new TypedTrainer(
                m, G, TypedEpochs.shards(TypedShardSet.open(shards), true), sampler, opts)) {
      m.init(opts.seed());
      t.fit(modelDir, null);
    }
  }

  private static void resume(Path modelDir, MatmulPrecision p) {
    TypedModelConfig cfg =
        TypedModelConfig.of(G.schema(), 0, TypedModelKind.RGCN, 8, 2, 0.2f, 0, EmbeddingMode.AUTO);
    TypedTrainOptions opts = new TypedTrainOptions(2, 2, 0.02f, 1e-4f, 5, LrSchedule.CONSTANT, p);
    try (CpuBackend be = new CpuBackend();
        TypedModel m = new TypedModel(cfg, be)) {
      m.init(opts.seed());
      Adam adam = new Adam(be, m.numParams(), opts.weightDecay());
      TypedModelDir.resume(modelDir, m, adam, opts.identity(), "best.val_micro_f1");
    }
  }

  @Test
  void aResumeWithAnotherPrecisionIsRefused() throws Exception {
    Path shards = TypedTestShards.write(G, tmp.resolve("shards"), FeatureEncoding.NONE);
    Path tf32 = tmp.resolve("tf32");
    trainRecording(shards, tf32, MatmulPrecision.TF32);
    Path fp32 = tmp.resolve("fp32");
    trainRecording(shards, fp32, MatmulPrecision.FP32);
    assertThat(Files.exists(tf32.resolve("checkpoint.bin"))).isTrue();

    resume(tf32, MatmulPrecision.TF32);
    resume(fp32, MatmulPrecision.FP32);
    assertThatThrownBy(() -> resume(tf32, MatmulPrecision.FP32))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("trained with precision=tf32, this run has fp32");
    assertThatThrownBy(() -> resume(tf32, MatmulPrecision.BF16))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("trained with precision=tf32, this run has bf16");
    assertThatThrownBy(() -> resume(fp32, MatmulPrecision.TF32))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("trained with precision=fp32, this run has tf32");
  }
}
