package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.FeatureTable;
import io.fanout.graph.RowDecoder;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.store.FeatureEncoder;
import io.fanout.store.FeatureParams;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.cuda.CudaBackend;
import io.fanout.tensor.cuda.CudaBackendProvider;
import io.fanout.tensor.cuda.ZeroCopyFeatures;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On the CUDA backend, training with zero-copy feature access (the loader only samples; a kernel
 * reads each batch's rows from pinned host memory) gives the model that the CPU gather and upload
 * gives, bit for bit, and both release all device memory; on f16, int8, int4 and pq rows the
 * decode-gather kernels give the model of the host decoder's rows. Skipped, with the reason
 * printed, where no CUDA device exists.
 */
@Tag("gpu")
class CudaZeroCopyTrainingTest {
  @TempDir Path tmp;

  @Test
  void zeroCopyTrainsTheModelThatGatherTrains() throws Exception {
    String why = new CudaBackendProvider().unavailableReason();
    if (!why.isEmpty()) {
      System.out.println("skipping GPU test: " + why);
    }
    Assumptions.assumeTrue(why.isEmpty(), () -> "skipping GPU test: " + why);
    TestData d = TestData.random(3000, 8, 48, 7);
    ModelConfig cfg = new ModelConfig("sage", 48, 32, d.classes, 2, 0.5f, "relu", "none");
    float[] gather = train(d, d.features, cfg, null, tmp.resolve("gather"));
    float[] zeroCopy =
        train(
            d,
            d.features,
            cfg,
            be -> ZeroCopyFeatures.pinnedCopy(be, d.features.rows, d.features.n, cfg.inDim()),
            tmp.resolve("zero-copy"));
    assertThat(zeroCopy).isEqualTo(gather);
    GnnModel cpu = new GnnModel(cfg, new CpuBackend());
    cpu.init(3);
    assertThat(gather).isNotEqualTo(cpu.params()); // it trained
  }

  /**
   * On a quantized feature file the decode-gather kernel reads the encoded rows over PCIe: the
   * model is the one trained by gathering the rows the host decoder ({@link RowDecoder}) decodes.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"f16", "int8", "int4", "pq"})
  void zeroCopyOnEncodedRowsTrainsTheModelOfTheHostDecodedGather(String encoding) throws Exception {
    // the encoded file and its host-decoded rows are built (and checked) without a device too
    TestData d = TestData.random(3000, 8, 48, 7);
    int dim = d.features.dim;
    FeatureParams params = params(StoreLayout.encodingCode(encoding), d.features);
    FeatureEncoder enc = new FeatureEncoder(params);
    int rb = params.rowBytes();
    ByteBuffer file =
        ByteBuffer.allocate(StoreLayout.HEADER_BYTES + d.features.n * rb)
            .order(ByteOrder.LITTLE_ENDIAN);
    byte[] row = new byte[rb];
    for (int v = 0; v < d.features.n; v++) {
      enc.encode(d.features.rows, v * dim, row);
      file.put(StoreLayout.HEADER_BYTES + v * rb, row);
    }
    Path feat = tmp.resolve(encoding + ".feat");
    Files.write(feat, file.array());
    float[] decoded = new float[d.features.n * dim];
    RowDecoder dec = RowDecoder.of(params);
    for (int v = 0; v < d.features.n; v++) {
      dec.decode(file, StoreLayout.HEADER_BYTES + v * rb, decoded, v * dim);
    }
    TestData.ArrayFeatures host = new TestData.ArrayFeatures(decoded, d.features.n, dim);
    assertThat(decoded).as("decoded rows are not the f32 rows").isNotEqualTo(d.features.rows);
    String why = new CudaBackendProvider().unavailableReason();
    if (!why.isEmpty()) {
      System.out.println("skipping GPU test: " + why);
    }
    Assumptions.assumeTrue(why.isEmpty(), () -> "skipping GPU test: " + why);
    ModelConfig cfg = new ModelConfig("sage", dim, 32, d.classes, 2, 0.5f, "relu", "none");
    float[] gather = train(d, host, cfg, null, tmp.resolve(encoding + "-gather"));
    float[] zeroCopy =
        train(
            d,
            host,
            cfg,
            be ->
                ZeroCopyFeatures.ofFiles(
                    be, new Path[] {feat}, new long[] {0, d.features.n}, params, 1L << 30),
            tmp.resolve(encoding + "-zero-copy"));
    assertThat(zeroCopy).isEqualTo(gather);
  }

  /** f16 as is; int8/int4 over the columns' ranges; pq: groups of 5 columns, 16 centroids. */
  private static FeatureParams params(int encoding, TestData.ArrayFeatures f) {
    int dim = f.dim;
    switch (encoding) {
      case StoreLayout.ENCODING_INT8, StoreLayout.ENCODING_INT4 -> {
        float[] min = new float[dim];
        float[] max = new float[dim];
        Arrays.fill(min, Float.POSITIVE_INFINITY);
        Arrays.fill(max, Float.NEGATIVE_INFINITY);
        for (int v = 0; v < f.n; v++) {
          for (int c = 0; c < dim; c++) {
            min[c] = Math.min(min[c], f.rows[v * dim + c]);
            max[c] = Math.max(max[c], f.rows[v * dim + c]);
          }
        }
        return FeatureParams.affine(encoding, min, max);
      }
      case StoreLayout.ENCODING_PQ -> {
        int gs = 5;
        int k = 16;
        float[][] books = new float[(dim + gs - 1) / gs][];
        for (int g = 0; g < books.length; g++) {
          int w = Math.min(gs, dim - g * gs);
          books[g] = new float[k * w];
          for (int c = 0; c < k; c++) {
            System.arraycopy(f.rows, (c * 181 % f.n) * dim + g * gs, books[g], c * w, w);
          }
        }
        return FeatureParams.pq(dim, gs, k, books);
      }
      default -> {
        return FeatureParams.plain(encoding, dim);
      }
    }
  }

  /** The mapped rows a zero-copy run reads, opened on the run's backend. */
  private interface RowsOpener {
    ZeroCopyFeatures open(CudaBackend be);
  }

  /** Trains with the host gather of {@code features} ({@code rows} null) or zero-copy. */
  private static float[] train(
      TestData d, FeatureTable features, ModelConfig cfg, RowsOpener rows, Path dir)
      throws Exception {
    boolean zeroCopy = rows != null;
    CudaBackend be = new CudaBackend(0);
    try {
      GnnModel model = new GnnModel(cfg, be);
      model.allowSparseInput(false);
      model.init(3);
      TrainOptions opts = new TrainOptions(3, 0.01f, 5e-4f, LrSchedule.CONSTANT, 0);
      SampledEpochs data =
          new SampledEpochs(
                  d.csr,
                  d.vertices,
                  features,
                  d.vertices.ofSplit(StoreLayout.SPLIT_TRAIN),
                  new int[] {10, 5},
                  256,
                  11,
                  true,
                  "none",
                  2)
              .gather(!zeroCopy);
      float[] params;
      try (ZeroCopyFeatures mapped = zeroCopy ? rows.open(be) : null;
          Trainer t = new Trainer(model, opts, GradientReducer.LOCAL)) {
        if (mapped != null) {
          t.readFeaturesFrom(mapped);
        }
        t.fit(data, null, dir, false, Map.of(), null, 0);
        params = model.params();
      }
      model.close();
      be.pool().checkNoLeaks();
      return params;
    } finally {
      be.close();
    }
  }
}
