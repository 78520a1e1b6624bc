package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stores written in every feature encoding and read back through {@link GraphStore}: each decoded
 * value within the encoding's error bound, rows crossing mapping chunks included; a damaged
 * parameters file refused.
 */
class FeatureEncodingsTest {
  static final int DIM = 13; // odd: int4's last byte holds one column; pq's last group is narrower
  static final int[] PARTS = {37, 0, 63};
  static final int CHUNK_SHIFT = 7; // 128-byte chunks: many rows straddle a boundary

  @TempDir Path tmp;

  static StoreFixtures.Graph graph() {
    StoreFixtures.Graph g = StoreFixtures.random(11, 100, 3, DIM);
    for (float[] row : g.features) {
      row[0] = 1.5f; // a constant column: scale 0, decoded exactly
      row[1] *= 1000f; // a wide column
    }
    return g;
  }

  static float[][] minMax(float[][] rows) {
    float[] min = new float[DIM];
    float[] max = new float[DIM];
    java.util.Arrays.fill(min, Float.POSITIVE_INFINITY);
    java.util.Arrays.fill(max, Float.NEGATIVE_INFINITY);
    for (float[] r : rows) {
      for (int c = 0; c < DIM; c++) {
        min[c] = Math.min(min[c], r[c]);
        max[c] = Math.max(max[c], r[c]);
      }
    }
    return new float[][] {min, max};
  }

  /** Every row gathered in a shuffled order, as the trainer's input buffer receives it. */
  float[][] readBack(Path store) {
    try (GraphStore s = GraphStore.open(store, CHUNK_SHIFT)) {
      int n = s.features().numVertices();
      int[] ids = new int[n];
      for (int i = 0; i < n; i++) {
        ids[i] = (i * 37) % n;
      }
      float[] buf = new float[n * DIM + 5];
      s.features().gather(ids, 0, n, buf, 5);
      float[][] out = new float[n][DIM];
      for (int i = 0; i < n; i++) {
        System.arraycopy(buf, 5 + i * DIM, out[ids[i]], 0, DIM);
      }
      return out;
    }
  }

  @Test
  void f32AndF16RoundTrip() {
    StoreFixtures.Graph g = graph();
    Path f32 = tmp.resolve("f32");
    StoreFixtures.write(f32, g, PARTS, FeatureParams.plain(StoreLayout.ENCODING_F32, DIM));
    assertThat(readBack(f32)).isDeepEqualTo(g.features);

    Path f16 = tmp.resolve("f16");
    StoreFixtures.write(f16, g, PARTS, FeatureParams.plain(StoreLayout.ENCODING_F16, DIM));
    float[][] got = readBack(f16);
    for (int v = 0; v < got.length; v++) {
      for (int c = 0; c < DIM; c++) {
        float x = g.features[v][c];
        // half precision: 11 significant bits, relative error <= 2^-11 (all values here are normal)
        assertThat((double) Math.abs(got[v][c] - x)).isLessThanOrEqualTo(Math.abs(x) * 0x1p-11);
      }
    }
  }

  @Test
  void int8AndInt4DecodeWithinHalfAStep() {
    StoreFixtures.Graph g = graph();
    float[][] mm = minMax(g.features);
    for (int enc : new int[] {StoreLayout.ENCODING_INT8, StoreLayout.ENCODING_INT4}) {
      FeatureParams p = FeatureParams.affine(enc, mm[0], mm[1]);
      Path store = tmp.resolve(StoreLayout.encodingName(enc));
      StoreFixtures.write(store, g, PARTS, p);
      float[][] got = readBack(store);
      int levels = FeatureParams.levels(enc);
      double worst = 0;
      for (int v = 0; v < got.length; v++) {
        for (int c = 0; c < DIM; c++) {
          double step = ((double) mm[1][c] - mm[0][c]) / levels;
          double err = Math.abs(got[v][c] - g.features[v][c]);
          assertThat(err)
              .as("%s vertex %d column %d", StoreLayout.encodingName(enc), v, c)
              .isLessThanOrEqualTo(step / 2 * (1 + 1e-5) + Math.ulp(mm[1][c]));
          worst = Math.max(worst, err / Math.max(step, 1e-30));
        }
        assertThat(got[v][0]).isEqualTo(1.5f);
      }
      assertThat(worst).as("the bound is tight, not vacuous").isGreaterThan(0.4);
      try (GraphStore s = GraphStore.open(store)) {
        assertThat(s.featureParams().rowBytes()).isEqualTo(levels == 255 ? DIM : (DIM + 1) / 2);
      }
    }
  }

  @Test
  void pqDecodesEachGroupToItsNearestCentroid() {
    StoreFixtures.Graph g = graph();
    int gs = 4;
    int groups = (DIM + gs - 1) / gs;
    int k = 40;
    SplittableRandom rnd = new SplittableRandom(3);
    float[][] codebooks = new float[groups][];
    for (int grp = 0; grp < groups; grp++) {
      int w = Math.min(gs, DIM - grp * gs);
      codebooks[grp] = new float[k * w];
      for (int c = 0; c < k; c++) {
        // half the centroids are rows' own sub-vectors (decoded exactly), half random points
        float[] src = c % 2 == 0 ? g.features[c] : null;
        for (int j = 0; j < w; j++) {
          codebooks[grp][c * w + j] =
              src != null ? src[grp * gs + j] : (float) (rnd.nextGaussian() * (j == 1 ? 1000 : 1));
        }
      }
    }
    FeatureParams p = FeatureParams.pq(DIM, gs, k, codebooks);
    Path store = tmp.resolve("pq");
    StoreFixtures.write(store, g, PARTS, p);
    float[][] got = readBack(store);
    for (int v = 0; v < got.length; v++) {
      for (int grp = 0; grp < groups; grp++) {
        int w = Math.min(gs, DIM - grp * gs);
        int best = 0;
        double bestD = Double.MAX_VALUE;
        for (int c = 0; c < k; c++) {
          double d = 0;
          for (int j = 0; j < w; j++) {
            double diff = g.features[v][grp * gs + j] - codebooks[grp][c * w + j];
            d += diff * diff;
          }
          if (d < bestD) {
            bestD = d;
            best = c;
          }
        }
        for (int j = 0; j < w; j++) {
          assertThat(got[v][grp * gs + j]).isEqualTo(codebooks[grp][best * w + j]);
        }
      }
      if (v < k && v % 2 == 0) {
        assertThat(got[v]).isEqualTo(g.features[v]);
      }
    }
    try (GraphStore s = GraphStore.open(store)) {
      assertThat(s.featureParams().rowBytes()).isEqualTo(groups);
    }
  }

  @Test
  void damagedParametersAreRefusedByChecksum() throws IOException {
    StoreFixtures.Graph g = graph();
    float[][] mm = minMax(g.features);
    Path store = tmp.resolve("int8");
    StoreFixtures.write(
        store, g, PARTS, FeatureParams.affine(StoreLayout.ENCODING_INT8, mm[0], mm[1]));
    Path params = StoreManifest.read(store).dataRoot(store).resolve(StoreLayout.FEATURE_PARAMS);
    byte[] b = Files.readAllBytes(params);
    b[b.length - 3] ^= 0x10; // one scale or offset bit: rows would decode wrong, silently
    Files.write(params, b);
    assertThatThrownBy(() -> GraphStore.open(store))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(params.toString())
        .hasMessageContaining("damaged feature parameters: CRC32C")
        .hasMessageContaining("rerun prepare or quantize");

    Files.delete(params);
    assertThatThrownBy(() -> GraphStore.open(store))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("missing (the int8 feature parameters");
  }
}
