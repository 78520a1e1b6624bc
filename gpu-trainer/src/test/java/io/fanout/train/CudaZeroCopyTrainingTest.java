package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureFiles;
import io.fanout.features.RowCache;
import io.fanout.features.StoreFeatureRows;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.RowDecoder;
import io.fanout.nn.GnnModel;
import io.fanout.nn.LrSchedule;
import io.fanout.nn.ModelConfig;
import io.fanout.store.FeatureEncoder;
import io.fanout.store.FeatureParams;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.CpuBackend;
import io.fanout.tensor.PagedFeatureRows;
import io.fanout.tensor.cuda.CudaBackend;
import io.fanout.tensor.cuda.GpuTests;
import io.fanout.tensor.cuda.KernelFeatureRows;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On the CUDA backend, training with zero-copy feature access (the loader only samples; a kernel
 * reads each batch's rows from pinned host memory) or with the rows resident in device memory gives
 * the model that the CPU gather and upload gives, bit for bit, and all release all device memory;
 * on f16, int8, int4 and pq rows the decode-gather kernels give the model of the host decoder's
 * rows, read over PCIe or from device memory. Skipped, with the reason printed, where no CUDA
 * device exists.
 */
@Tag("gpu")
class CudaZeroCopyTrainingTest {
  @TempDir Path tmp;

  @Test
  void zeroCopyTrainsTheModelThatGatherTrains() throws Exception {
    GpuTests.assumeDevice();
    TestData d = TestData.random(3000, 8, 48, 7);
    ModelConfig cfg = new ModelConfig("sage", 48, 32, d.classes, 2, 0.5f, "relu", "none");
    float[] gather = train(d, d.features, cfg, null, tmp.resolve("gather"));
    float[] zeroCopy =
        train(
            d,
            d.features,
            cfg,
            be -> KernelFeatureRows.pinnedCopy(be, d.features.rows, d.features.n, cfg.inDim()),
            tmp.resolve("zero-copy"));
    assertThat(zeroCopy).isEqualTo(gather);
    float[] device =
        train(
            d,
            d.features,
            cfg,
            be -> KernelFeatureRows.residentCopy(be, d.features.rows, d.features.n, cfg.inDim()),
            tmp.resolve("device"));
    assertThat(device).as("rows resident in device memory").isEqualTo(gather);
    GnnModel cpu = new GnnModel(cfg, new CpuBackend());
    cpu.init(3);
    assertThat(gather).isNotEqualTo(cpu.params()); // it trained
  }

  /**
   * With {@code l2} feature norm, rows read in place (device-resident) are normalized on the
   * device: the model of the loader's host normalization and upload, bit for bit.
   */
  @Test
  void rowsReadInPlaceAreNormalizedAsTheHostNormalizesThem() throws Exception {
    GpuTests.assumeDevice();
    TestData d = TestData.random(3000, 8, 48, 7);
    ModelConfig cfg = new ModelConfig("sage", 48, 32, d.classes, 2, 0.5f, "relu", "l2");
    float[] gather = train(d, d.features, cfg, null, tmp.resolve("l2-gather"));
    float[] device =
        train(
            d,
            d.features,
            cfg,
            be ->
                NormalizedFeatureRows.of(
                    KernelFeatureRows.residentCopy(be, d.features.rows, d.features.n, cfg.inDim()),
                    be,
                    cfg.featureNorm()),
            tmp.resolve("l2-device"));
    assertThat(device).isEqualTo(gather);
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
    EncodedFile f = encode(d, encoding);
    FeatureParams params = f.params();
    Path feat = f.path();
    TestData.ArrayFeatures host = f.decoded();
    assertThat(host.rows).as("decoded rows are not the f32 rows").isNotEqualTo(d.features.rows);
    GpuTests.assumeDevice();
    ModelConfig cfg = new ModelConfig("sage", dim, 32, d.classes, 2, 0.5f, "relu", "none");
    float[] gather = train(d, host, cfg, null, tmp.resolve(encoding + "-gather"));
    float[] zeroCopy =
        train(
            d,
            host,
            cfg,
            be ->
                KernelFeatureRows.ofFiles(
                    be,
                    StoreFeatureRows.files(new Path[] {feat}, new long[] {0, d.features.n}, params),
                    1L << 30),
            tmp.resolve(encoding + "-zero-copy"));
    assertThat(zeroCopy).isEqualTo(gather);
    float[] device =
        train(
            d,
            host,
            cfg,
            be ->
                KernelFeatureRows.resident(
                    be,
                    StoreFeatureRows.files(
                        new Path[] {feat}, new long[] {0, d.features.n}, params)),
            tmp.resolve(encoding + "-device"));
    assertThat(device).as("encoded rows resident in device memory").isEqualTo(gather);
  }

  /**
   * With a {@code belady} feature cache of a tenth of the rows (and with {@code none}, every row a
   * miss): the loader reads the rows from the encoded file into the cache's pinned pages and the
   * decode-gather kernel reads them there by slot; the model is the host-decoded gather's, bit for
   * bit, every page is freed and the device pool is clean.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"f32", "int4"})
  void theCachesPinnedPagesTrainTheModelOfTheHostDecodedGather(String encoding) throws Exception {
    TestData d = TestData.random(3000, 8, 48, 7);
    EncodedFile f = encode(d, encoding);
    GpuTests.assumeDevice();
    ModelConfig cfg =
        new ModelConfig("sage", d.features.dim, 32, d.classes, 2, 0.5f, "relu", "none");
    float[] gather = train(d, f.decoded(), cfg, null, tmp.resolve(encoding + "-gather"));
    long rowBytes = f.params().rowBytes();
    for (CachePolicy policy : new CachePolicy[] {CachePolicy.BELADY, CachePolicy.NONE}) {
      long bytes = policy == CachePolicy.NONE ? 0 : d.features.n / 10 * rowBytes;
      float[] cached =
          trainThroughCache(d, f, cfg, policy, bytes, tmp.resolve(encoding + "-" + policy));
      assertThat(cached).as("%s through %s", encoding, policy).isEqualTo(gather);
    }
  }

  /** Trains as {@link #train} with zero-copy reads of a cache's pinned pages; checks the pool. */
  private static float[] trainThroughCache(
      TestData d, EncodedFile f, ModelConfig cfg, CachePolicy policy, long bytes, Path dir)
      throws Exception {
    CudaBackend be = new CudaBackend(0);
    try {
      GnnModel model = new GnnModel(cfg, be);
      model.allowSparseInput(false);
      model.init(3);
      TrainOptions opts = new TrainOptions(3, 0.01f, 5e-4f, LrSchedule.CONSTANT, 0);
      float[] params;
      try (PagedFeatureRows pages = StoreFeatureRows.pages(be, f.params());
          RowCache cache =
              new RowCache(
                  FeatureFiles.of(
                      new Path[] {f.path()}, new long[] {0, d.features.n}, f.params(), 2),
                  policy,
                  bytes,
                  pages);
          Trainer t = new Trainer(model, opts, GradientReducer.LOCAL)) {
        SampledEpochs data =
            d.trainEpochs(f.decoded(), new int[] {10, 5}, 256, 11, "none", 2)
                .gather(false)
                .cache(cache);
        t.readFeaturesFrom(pages);
        t.fit(data, null, dir, false, Map.of(), null, 0);
        params = model.params();
        assertThat(cache.misses()).isPositive();
        assertThat(cache.files().rowsRead()).isEqualTo(cache.misses());
        if (policy != CachePolicy.NONE) {
          assertThat(cache.hits()).isPositive();
        }
      }
      model.close();
      be.pool().checkNoLeaks();
      return params;
    } finally {
      be.close();
    }
  }

  /** A feature file of {@code d}'s rows encoded as {@code encoding}, and the rows it decodes to. */
  private record EncodedFile(Path path, FeatureParams params, TestData.ArrayFeatures decoded) {}

  private EncodedFile encode(TestData d, String encoding) throws java.io.IOException {
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
    return new EncodedFile(feat, params, new TestData.ArrayFeatures(decoded, d.features.n, dim));
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
    io.fanout.tensor.FeatureRows open(CudaBackend be);
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
          d.trainEpochs(features, new int[] {10, 5}, 256, 11, cfg.featureNorm().id(), 2)
              .gather(!zeroCopy);
      float[] params;
      try (io.fanout.tensor.FeatureRows mapped = zeroCopy ? rows.open(be) : null;
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
