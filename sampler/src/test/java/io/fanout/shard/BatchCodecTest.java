package io.fanout.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.sample.MiniBatch;
import io.fanout.store.Half;
import io.fanout.store.InvalidInputException;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BatchCodecTest {

  /** A structurally valid random batch with {@code layers} hops. */
  static MiniBatch randomBatch(SplittableRandom r, int layers, int seeds) {
    int[] sizes = new int[layers + 1];
    sizes[0] = seeds;
    for (int h = 1; h <= layers; h++) {
      sizes[h] = sizes[h - 1] + r.nextInt(3 * seeds + 1);
    }
    int[] nodes = new int[sizes[layers]];
    for (int i = 0; i < nodes.length; i++) {
      nodes[i] = r.nextInt(Integer.MAX_VALUE);
    }
    int[][] indptr = new int[layers][];
    int[][] indices = new int[layers][];
    for (int h = 1; h <= layers; h++) {
      int[] p = new int[sizes[h - 1] + 1];
      for (int i = 0; i < sizes[h - 1]; i++) {
        p[i + 1] = p[i] + r.nextInt(6);
      }
      int[] ix = new int[p[p.length - 1]];
      for (int i = 0; i < ix.length; i++) {
        ix[i] = sizes[h] == 0 ? 0 : r.nextInt(sizes[h]);
      }
      indptr[h - 1] = p;
      indices[h - 1] = ix;
    }
    int[] labels = new int[seeds];
    for (int i = 0; i < seeds; i++) {
      labels[i] = r.nextInt(10) - 1;
    }
    return new MiniBatch(7, r.nextInt(1000), nodes, sizes, indptr, indices, labels);
  }

  static void assertSameBatch(MiniBatch a, MiniBatch b) {
    assertThat(b.epoch()).isEqualTo(a.epoch());
    assertThat(b.batch()).isEqualTo(a.batch());
    assertThat(b.layerSizes()).isEqualTo(a.layerSizes());
    assertThat(b.nodes()).isEqualTo(a.nodes());
    assertThat(b.labels()).isEqualTo(a.labels());
    for (int h = 1; h <= a.layers(); h++) {
      assertThat(b.indptr(h)).isEqualTo(a.indptr(h));
      assertThat(b.indices(h)).isEqualTo(a.indices(h));
    }
  }

  @Test
  void roundTripsIdsAndBlocks() {
    SplittableRandom r = new SplittableRandom(1);
    for (int layers = 0; layers <= 4; layers++) {
      for (int seeds : new int[] {0, 1, 7, 200}) {
        MiniBatch b = randomBatch(r, layers, seeds);
        EncodedBatch e = BatchCodec.encode(b, null, FeatureEncoding.NONE);
        assertThat(e.features()).isNull();
        assertThat(e.numSeeds()).isEqualTo(seeds);
        assertSameBatch(b, BatchCodec.decode(e));
      }
    }
  }

  @Test
  void arraysAreLittleEndianInt32() {
    MiniBatch b =
        new MiniBatch(
            0,
            3,
            new int[] {0x01020304, 5},
            new int[] {1, 2},
            new int[][] {{0, 2}},
            new int[][] {{1, 0}},
            new int[] {-1});
    EncodedBatch e = BatchCodec.encode(b, null, FeatureEncoding.NONE);
    assertThat(e.nodes()).containsExactly(4, 3, 2, 1, 5, 0, 0, 0);
    assertThat(e.layerSizes()).containsExactly(1, 0, 0, 0, 2, 0, 0, 0);
    assertThat(e.indptr()).containsExactly(0, 0, 0, 0, 2, 0, 0, 0);
    assertThat(e.indices()).containsExactly(1, 0, 0, 0, 0, 0, 0, 0);
    assertThat(e.labels()).containsExactly(-1, -1, -1, -1);
  }

  @Test
  void f32FeaturesRoundTripExactly() {
    SplittableRandom r = new SplittableRandom(2);
    MiniBatch b = randomBatch(r, 2, 5);
    int dim = 3;
    float[] f = new float[b.nodes().length * dim];
    for (int i = 0; i < f.length; i++) {
      f[i] = (float) r.nextGaussian();
    }
    f[0] = Float.NaN;
    f[1] = Float.NEGATIVE_INFINITY;
    EncodedBatch e = BatchCodec.encode(b, f, FeatureEncoding.F32);
    assertThat(e.features()).hasSize(4 * f.length);
    assertThat(BatchCodec.featureValues(e, FeatureEncoding.F32)).isEqualTo(f.length);
    float[] out = new float[f.length + 10];
    Arrays.fill(out, 42f);
    assertThat(BatchCodec.decodeFeatures(e, FeatureEncoding.F32, out, 10)).isEqualTo(f.length);
    assertThat(Arrays.copyOfRange(out, 10, out.length)).isEqualTo(f);
    assertThat(out[9]).isEqualTo(42f);
    assertSameBatch(b, BatchCodec.decode(e));
  }

  @Test
  void f16FeaturesAreNearestHalf() {
    SplittableRandom r = new SplittableRandom(3);
    MiniBatch b = randomBatch(r, 1, 40);
    float[] f = new float[b.nodes().length * 4];
    for (int i = 0; i < f.length; i++) {
      f[i] = (float) (r.nextGaussian() * Math.pow(10, r.nextInt(-6, 6)));
    }
    EncodedBatch e = BatchCodec.encode(b, f, FeatureEncoding.F16);
    assertThat(e.features()).hasSize(2 * f.length);
    float[] back = BatchCodec.decodeFeatures(e, FeatureEncoding.F16);
    float[] halves = sortedFiniteHalves();
    for (int i = 0; i < f.length; i++) {
      assertThat(back[i]).as("value %s", f[i]).isEqualTo(nearestHalf(halves, f[i]));
    }
  }

  @Test
  void halfConversionIsExactOnEveryHalf() {
    for (int h = 0; h < 65536; h++) {
      float v = Half.toFloat((short) h);
      if (Float.isNaN(v)) {
        assertThat(Float.isNaN(Half.toFloat(Half.fromFloat(v)))).isTrue();
      } else {
        assertThat(Half.fromFloat(v) & 0xffff).as("half %x", h).isEqualTo(h);
      }
    }
    assertThat(Half.toFloat((short) 0x3c00)).isEqualTo(1f);
    assertThat(Half.toFloat((short) 0xc000)).isEqualTo(-2f);
    assertThat(Half.toFloat((short) 0x7bff)).isEqualTo(65504f);
    assertThat(Half.toFloat((short) 0x0001)).isEqualTo(0x1p-24f);
    assertThat(Half.toFloat(Half.fromFloat(1e6f))).isEqualTo(Float.POSITIVE_INFINITY);
    assertThat(Half.toFloat(Half.fromFloat(65520f))).isEqualTo(Float.POSITIVE_INFINITY);
    assertThat(Half.toFloat(Half.fromFloat(65519f))).isEqualTo(65504f);
    assertThat(Half.toFloat(Half.fromFloat(1e-9f))).isEqualTo(0f);
  }

  @Test
  void corruptRowsAreClearErrors() {
    MiniBatch b = randomBatch(new SplittableRandom(4), 2, 6);
    EncodedBatch e = BatchCodec.encode(b, null, FeatureEncoding.NONE);
    EncodedBatch shortNodes =
        new EncodedBatch(
            e.epoch(),
            e.batch(),
            e.numSeeds(),
            e.layerSizes(),
            Arrays.copyOf(e.nodes(), e.nodes().length - 4),
            e.indptr(),
            e.indices(),
            e.labels(),
            null);
    assertThatThrownBy(() -> BatchCodec.decode(shortNodes))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("'nodes'")
        .hasMessageContaining("batch " + e.batch());
    EncodedBatch extraIndices =
        new EncodedBatch(
            e.epoch(),
            e.batch(),
            e.numSeeds(),
            e.layerSizes(),
            e.nodes(),
            e.indptr(),
            Arrays.copyOf(e.indices(), e.indices().length + 4),
            e.labels(),
            null);
    assertThatThrownBy(() -> BatchCodec.decode(extraIndices))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("'indices'");
    EncodedBatch wrongSeeds =
        new EncodedBatch(
            e.epoch(),
            e.batch(),
            e.numSeeds() + 1,
            e.layerSizes(),
            e.nodes(),
            e.indptr(),
            e.indices(),
            e.labels(),
            null);
    assertThatThrownBy(() -> BatchCodec.decode(wrongSeeds))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("num_seeds");
    EncodedBatch oddFeatures =
        new EncodedBatch(
            e.epoch(),
            e.batch(),
            e.numSeeds(),
            e.layerSizes(),
            e.nodes(),
            e.indptr(),
            e.indices(),
            e.labels(),
            new byte[3]);
    assertThatThrownBy(() -> BatchCodec.featureValues(oddFeatures, FeatureEncoding.F16))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("'features'");
  }

  private static float[] sortedFiniteHalves() {
    float[] all = new float[65536];
    int n = 0;
    for (int h = 0; h < 65536; h++) {
      float v = Half.toFloat((short) h);
      if (!Float.isNaN(v) && !Float.isInfinite(v)) {
        all[n++] = v;
      }
    }
    float[] out = Arrays.copyOf(all, n);
    Arrays.sort(out);
    return out;
  }

  /** Reference rounding: nearest representable half, ties to the one with an even mantissa. */
  private static float nearestHalf(float[] halves, float f) {
    if (Math.abs(f) >= 65520f) {
      return f > 0 ? Float.POSITIVE_INFINITY : Float.NEGATIVE_INFINITY;
    }
    int i = Arrays.binarySearch(halves, f);
    if (i >= 0) {
      return halves[i];
    }
    int hi = -i - 1;
    float a = halves[hi - 1];
    float c = halves[hi];
    double da = (double) f - a;
    double dc = (double) c - f;
    if (da < dc) {
      return a;
    }
    if (dc < da) {
      return c;
    }
    return (Half.fromFloat(a) & 1) == 0 ? a : c;
  }
}
