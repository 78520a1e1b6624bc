package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedStoreFixtures;
import io.fanout.nn.FeatureNormKind;
import io.fanout.nn.typed.TypedTestGraphs;
import io.fanout.shard.FeatureEncoding;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.BackendKind;
import io.fanout.tensor.cuda.GpuTests;
import io.fanout.train.FeatureAccessMode;
import io.fanout.train.TrainSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train --feature-access zero-copy|device} on a typed store on CUDA: each featured type's
 * rows are read by the kernels from that type's registered (zero-copy) or resident (device) feature
 * file, quantized types decoded by the decode-gather kernels and normalized by {@code
 * normalize_rows}, so the model is the CUDA gather's, byte for byte, on f32 types and on f16, int8
 * and int4 types, with and without {@code --feature-norm l2}; {@code auto} resolves to one of them.
 * Skipped, with the reason printed, where no CUDA device exists.
 */
@Tag("gpu")
class CudaTypedZeroCopyTrainingTest {
  private static final ArrayTypedGraph G = TypedTestGraphs.small(3);
  private static final int[][] SIZES = {{10, 14}, {7, 11}, {10}};

  @TempDir Path tmp;

  /** The graph's store, types in {@code encodings}, and its training shards (two epochs). */
  private Path[] storeAndShards(String name, String[] encodings) throws Exception {
    Path store = tmp.resolve(name + ".store");
    TypedStoreFixtures.write(store, G, SIZES, new int[][][] {null, null, null}, encodings);
    try (TypedGraphStore g = TypedGraphStore.open(store, true)) {
      Path shards =
          TypedTestShards.write(
              g,
              tmp.resolve(name + ".shards"),
              StoreLayout.SPLIT_TRAIN,
              2,
              2,
              FeatureEncoding.NONE);
      return new Path[] {store, shards};
    }
  }

  private byte[] train(Path[] ss, String name, FeatureAccessMode access, FeatureNormKind norm)
      throws Exception {
    Path md = tmp.resolve("model-" + name);
    try (TypedGraphStore g = TypedGraphStore.open(ss[0], false)) {
      TypedTrainRun.train(
          TypedTestRuns.rgcn(g, ss[1], md)
              .epochs(2)
              .featureNorm(norm)
              .backend(BackendKind.CUDA)
              .deviceOrdinal(0)
              .loading(new TrainSpec.Loading(2, 2))
              .access(access)
              .build(),
          null,
          () -> false);
    }
    return Files.readAllBytes(md.resolve("checkpoint.bin"));
  }

  @Test
  void zeroCopyAndDeviceTrainTheCudaGathersModelOnEveryEncoding() throws Exception {
    GpuTests.assumeDevice();
    String[][] stores = {null, {"f16", "int8", null}, {"int4", "f32", null}};
    for (String[] enc : stores) {
      String name = enc == null ? "f32" : enc[0] + "-" + enc[1];
      Path[] ss = storeAndShards(name, enc);
      for (FeatureNormKind norm :
          new FeatureNormKind[] {FeatureNormKind.NONE, FeatureNormKind.L2}) {
        String run = name + "-" + norm.id();
        byte[] gather = train(ss, run + "-gather", FeatureAccessMode.GATHER, norm);
        assertThat(train(ss, run + "-zc", FeatureAccessMode.ZERO_COPY, norm))
            .as(run + " zero-copy")
            .isEqualTo(gather);
        assertThat(train(ss, run + "-device", FeatureAccessMode.DEVICE, norm))
            .as(run + " device")
            .isEqualTo(gather);
        assertThat(train(ss, run + "-auto", FeatureAccessMode.AUTO, norm))
            .as(run + " auto (device or zero-copy)")
            .isEqualTo(gather);
      }
    }
  }
}
