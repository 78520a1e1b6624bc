package io.fanout.tensor.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.features.StoreFeatureRows;
import io.fanout.graph.RowDecoder;
import io.fanout.store.FeatureParams;
import io.fanout.store.Half;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.FloatTensor;
import io.fanout.tensor.IntTensor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Zero-copy reads of quantized stores: the decode-gather kernels ({@code decode.cu}) read each
 * batch row's encoded bytes from mapped host memory and write the float32 values of the store's
 * {@link RowDecoder}, bit for bit, for f16 (all 65536 bit patterns), int8, int4 and pq.
 *
 * <p>The {@code @Tag("gpu")} tests run the kernels (skipped, with the reason printed, without a
 * device); they need neither Spark nor Hadoop: the feature files are written here by hand. The
 * other tests check on the CPU a Java transcription of the kernels' arithmetic against the
 * decoders.
 */
class ZeroCopyDecodeTest {
  /** Three partitions, the middle one empty; 200 rows. */
  private static final long[] STARTS = {0, 70, 70, 200};

  /** Batch rows: both ends of every partition, repeats, and a spread of the rest. */
  private static final int[] IDS = {0, 199, 69, 70, 71, 17, 17, 130, 3, 198, 100, 69, 0, 155};

  @TempDir Path tmp;

  // ---- the kernels, run on the device ----

  @Tag("gpu")
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"f16", "int8", "int4", "pq"})
  void decodeGatherEqualsTheRowDecoderBitForBit(String encoding) throws IOException {
    GpuTests.assumeDevice();
    for (int dim : new int[] {1, 7, 10}) {
      FeatureParams p = params(StoreLayout.encodingCode(encoding), dim, new SplittableRandom(dim));
      byte[] rows = randomRows(p, (int) STARTS[STARTS.length - 1], new SplittableRandom(31 + dim));
      // a chunk of 33 rows at most: chunk boundaries fall inside the partitions
      int[] got = gatherOnDevice(p, rows, IDS, 33L * p.rowBytes());
      assertThat(got).as("%s, dim %d", encoding, dim).isEqualTo(bits(decodeOnHost(p, rows, IDS)));
    }
  }

  /** Every binary16 bit pattern, through the f16 kernel, widens as {@link Half#toFloat} does. */
  @Tag("gpu")
  @Test
  void f16DecodeGatherWidensAllHalfBitPatternsAsTheHostDoes() throws IOException {
    GpuTests.assumeDevice();
    int dim = 256;
    FeatureParams p = FeatureParams.plain(StoreLayout.ENCODING_F16, dim);
    ByteBuffer b = ByteBuffer.allocate(2 * 65536).order(ByteOrder.LITTLE_ENDIAN);
    for (int h = 0; h < 65536; h++) {
      b.putShort((short) h); // row h / 256, column h % 256
    }
    int[] ids = new int[256];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = 255 - i;
    }
    long[] starts = {0, 100, 256};
    int[] got = gatherOnDevice(p, b.array(), starts, ids, 1L << 30);
    int[] want = new int[ids.length * dim];
    for (int i = 0; i < ids.length; i++) {
      for (int c = 0; c < dim; c++) {
        want[i * dim + c] = Float.floatToRawIntBits(Half.toFloat((short) (ids[i] * dim + c)));
      }
    }
    assertThat(got).isEqualTo(want);
    assertThat(got).isEqualTo(bits(decodeOnHost(p, b.array(), ids)));
  }

  private int[] gatherOnDevice(FeatureParams p, byte[] rows, int[] ids, long maxChunk)
      throws IOException {
    return gatherOnDevice(p, rows, STARTS, ids, maxChunk);
  }

  /**
   * Writes {@code rows} (all rows, encoded, back to back) as one feature file per partition of
   * {@code starts}, maps them with {@link KernelFeatureRows#ofFiles}, gathers {@code ids} on the
   * device and returns the raw bits of the floats written; checks that no device memory leaks.
   */
  private int[] gatherOnDevice(
      FeatureParams p, byte[] rows, long[] starts, int[] ids, long maxChunk) throws IOException {
    int rb = p.rowBytes();
    int parts = starts.length - 1;
    Path[] files = new Path[parts];
    for (int f = 0; f < parts; f++) {
      files[f] = tmp.resolve(p.encoding + "-" + p.dim + "-part-" + f + ".feat");
      int n = (int) (starts[f + 1] - starts[f]);
      byte[] file = new byte[StoreLayout.HEADER_BYTES + n * rb];
      System.arraycopy(rows, (int) starts[f] * rb, file, StoreLayout.HEADER_BYTES, n * rb);
      Files.write(files[f], file);
    }
    int dim = p.dim;
    float[] out = new float[ids.length * dim];
    try (CudaBackend be = new CudaBackend(-1)) {
      try (KernelFeatureRows z =
              KernelFeatureRows.ofFiles(be, StoreFeatureRows.files(files, starts, p), maxChunk);
          IntTensor ti = be.allocInt(ids.length);
          FloatTensor t = be.allocFloat(ids.length * dim + 5)) {
        System.out.println(
            StoreLayout.encodingName(p.encoding)
                + " dim "
                + dim
                + ": registered chunks "
                + z.registeredChunks()
                + " of "
                + z.chunks());
        assertThat(z.encoding().label()).isEqualTo(StoreLayout.encodingName(p.encoding));
        be.upload(ids, 0, ti, 0, ids.length);
        z.gather(ti, 0, ids.length, t, 5);
        be.download(t, 5, out, 0, out.length);
      }
      be.pool().checkNoLeaks();
    }
    return bits(out);
  }

  // ---- the kernels' arithmetic, transcribed, on the CPU ----

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"f16", "int8", "int4", "pq"})
  void theKernelArithmeticEqualsTheRowDecoder(String encoding) {
    for (int dim : new int[] {1, 2, 7, 10, 33}) {
      FeatureParams p = params(StoreLayout.encodingCode(encoding), dim, new SplittableRandom(dim));
      byte[] rows = randomRows(p, (int) STARTS[STARTS.length - 1], new SplittableRandom(5 + dim));
      assertThat(bits(emulateKernel(p, rows, IDS)))
          .as("%s, dim %d", encoding, dim)
          .isEqualTo(bits(decodeOnHost(p, rows, IDS)));
    }
  }

  @Test
  void theKernelsHalfWideningEqualsHalfToFloatForAllBitPatterns() {
    for (int h = 0; h < 65536; h++) {
      assertThat(Float.floatToRawIntBits(halfBitsToFloat(h)))
          .as("half 0x%04x", h)
          .isEqualTo(Float.floatToRawIntBits(Half.toFloat((short) h)));
    }
  }

  /** decode.cu's gather_parts_* for one batch, element by element, on rows laid back to back. */
  static float[] emulateKernel(FeatureParams p, byte[] rows, int[] ids) {
    int cols = p.dim;
    int rb = p.rowBytes();
    float[] scale = p.scale();
    float[] offset = p.offset();
    float[] out = new float[ids.length * cols];
    for (long e = 0; e < out.length; e++) {
      int r = (int) (e / cols);
      int j = (int) (e - (long) r * cols);
      int row = ids[r] * rb;
      float v;
      switch (p.encoding) {
        case StoreLayout.ENCODING_F16 ->
            v = halfBitsToFloat((rows[row + 2 * j] & 0xff) | (rows[row + 2 * j + 1] & 0xff) << 8);
        case StoreLayout.ENCODING_INT8 -> {
          int q = rows[row + j] & 0xff;
          v = offset[j] + scale[j] * (float) q; // __fadd_rn(offset, __fmul_rn(scale, q))
        }
        case StoreLayout.ENCODING_INT4 -> {
          int b = rows[row + (j >> 1)] & 0xff;
          int q = (j & 1) != 0 ? (b >> 4) & 0xf : b & 0xf;
          v = offset[j] + scale[j] * (float) q;
        }
        case StoreLayout.ENCODING_PQ -> {
          int g = j / p.groupSize;
          int col = g * p.groupSize;
          int w = Math.min(p.groupSize, cols - col);
          int code = rows[row + g] & 0xff;
          v = p.codebooks()[p.centroids * col + code * w + (j - col)];
        }
        default -> throw new IllegalArgumentException("encoding " + p.encoding);
      }
      out[(int) e] = v;
    }
    return out;
  }

  /** decode.cu's half_bits_to_float. */
  static float halfBitsToFloat(int h) {
    int sign = (h & 0x8000) << 16;
    int exp = (h >>> 10) & 0x1f;
    int mant = h & 0x3ff;
    if (exp == 0x1f) {
      return Float.intBitsToFloat(sign | 0x7f800000 | (mant << 13));
    }
    if (exp == 0) {
      if (mant == 0) {
        return Float.intBitsToFloat(sign);
      }
      float v = (float) mant * 5.9604644775390625e-8f;
      return Float.intBitsToFloat(sign | Float.floatToRawIntBits(v));
    }
    return Float.intBitsToFloat(sign | ((exp - 15 + 127) << 23) | (mant << 13));
  }

  // ---- fixtures ----

  /**
   * Parameters of {@code encoding} over {@code dim} columns: int8/int4 with scales and offsets of
   * both signs, some columns constant (scale 0); pq in groups of 3 columns (the last narrower
   * unless 3 divides dim) with 5 random centroids each.
   */
  static FeatureParams params(int encoding, int dim, SplittableRandom r) {
    switch (encoding) {
      case StoreLayout.ENCODING_F16 -> {
        return FeatureParams.plain(encoding, dim);
      }
      case StoreLayout.ENCODING_INT8, StoreLayout.ENCODING_INT4 -> {
        float[] min = new float[dim];
        float[] max = new float[dim];
        for (int c = 0; c < dim; c++) {
          min[c] = (float) (r.nextDouble() * 20 - 10);
          max[c] = c % 4 == 3 ? min[c] : min[c] + (float) (r.nextDouble() * 7.3);
        }
        return FeatureParams.affine(encoding, min, max);
      }
      case StoreLayout.ENCODING_PQ -> {
        int groupSize = 3;
        int centroids = 5;
        int groups = (dim + groupSize - 1) / groupSize;
        float[][] books = new float[groups][];
        for (int g = 0; g < groups; g++) {
          books[g] = new float[centroids * Math.min(groupSize, dim - g * groupSize)];
          for (int i = 0; i < books[g].length; i++) {
            books[g][i] = (float) r.nextGaussian();
          }
        }
        return FeatureParams.pq(dim, groupSize, centroids, books);
      }
      default -> throw new IllegalArgumentException("encoding " + encoding);
    }
  }

  /** {@code n} encoded rows of random bytes (pq: random codes below the centroid count). */
  static byte[] randomRows(FeatureParams p, int n, SplittableRandom r) {
    byte[] rows = new byte[n * p.rowBytes()];
    for (int i = 0; i < rows.length; i++) {
      rows[i] =
          (byte) (p.encoding == StoreLayout.ENCODING_PQ ? r.nextInt(p.centroids) : r.nextInt(256));
    }
    return rows;
  }

  /** The rows of {@code ids} decoded by the store's {@link RowDecoder}. */
  static float[] decodeOnHost(FeatureParams p, byte[] rows, int[] ids) {
    RowDecoder d = RowDecoder.of(p);
    ByteBuffer b = ByteBuffer.wrap(rows).order(ByteOrder.LITTLE_ENDIAN);
    float[] out = new float[ids.length * p.dim];
    for (int i = 0; i < ids.length; i++) {
      d.decode(b, ids[i] * d.rowBytes(), out, i * p.dim);
    }
    return out;
  }

  private static int[] bits(float[] a) {
    int[] out = new int[a.length];
    for (int i = 0; i < a.length; i++) {
      out[i] = Float.floatToRawIntBits(a[i]);
    }
    return out;
  }
}
