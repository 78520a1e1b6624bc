package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** pq codes against a nearest-centroid search one centroid at a time. */
class FeatureEncoderTest {
  /** Each group's nearest centroid: distances summed in double, the lowest index on ties. */
  private static byte[] reference(FeatureParams p, float[] row) {
    byte[] out = new byte[p.groups()];
    float[] cb = p.codebooks();
    for (int g = 0; g < p.groups(); g++) {
      int w = p.width(g);
      int base = p.centroids * g * p.groupSize;
      int best = 0;
      double bestDist = Double.MAX_VALUE;
      for (int c = 0; c < p.centroids; c++) {
        double d = 0;
        for (int j = 0; j < w; j++) {
          double e = (double) row[g * p.groupSize + j] - cb[base + c * w + j];
          d += e * e;
        }
        if (d < bestDist) {
          bestDist = d;
          best = c;
        }
      }
      out[g] = (byte) best;
    }
    return out;
  }

  private static FeatureParams params(int dim, int groupSize, int k, SplittableRandom r) {
    int groups = (dim + groupSize - 1) / groupSize;
    float[][] codebooks = new float[groups][];
    for (int g = 0; g < groups; g++) {
      int w = Math.min(groupSize, dim - g * groupSize);
      codebooks[g] = new float[k * w];
      for (int i = 0; i < codebooks[g].length; i++) {
        codebooks[g][i] = (float) r.nextDouble(-1, 1);
      }
    }
    return FeatureParams.pq(dim, groupSize, k, codebooks);
  }

  @Test
  void pqCodesAreTheNearestCentroidsOfTheReference() {
    SplittableRandom r = new SplittableRandom(7);
    // 8-wide groups, a narrower last group, a single column, and fewer than 256 centroids
    int[][] shapes = {{64, 8, 256}, {29, 8, 256}, {5, 1, 3}, {16, 16, 17}};
    for (int[] s : shapes) {
      FeatureParams p = params(s[0], s[1], s[2], r);
      FeatureEncoder enc = new FeatureEncoder(p);
      float[] row = new float[s[0]];
      byte[] got = new byte[p.rowBytes()];
      for (int i = 0; i < 300; i++) {
        for (int c = 0; c < row.length; c++) {
          row[c] = (float) r.nextDouble(-1.2, 1.2);
        }
        enc.encode(row, 0, got);
        assertThat(got).as("dim %d, group %d, row %d", s[0], s[1], i).isEqualTo(reference(p, row));
      }
    }
  }

  @Test
  void tiesTakeTheLowestCentroidAndNanRowsCodeZero() {
    float[] cb = {0.5f, 0.5f, -1f, -1f, 0.5f, 0.5f, -1f, -1f};
    FeatureParams p = FeatureParams.pq(2, 2, 4, new float[][] {cb});
    FeatureEncoder enc = new FeatureEncoder(p);
    byte[] got = new byte[1];
    enc.encode(new float[] {0.4f, 0.6f}, 0, got);
    assertThat(got[0]).isEqualTo((byte) 0);
    enc.encode(new float[] {-0.9f, -1.1f}, 0, got);
    assertThat(got[0]).isEqualTo((byte) 1);
    // halfway between centroid 0 and 1 (and their copies 2 and 3): the lowest index
    enc.encode(new float[] {-0.25f, -0.25f}, 0, got);
    assertThat(got[0]).isEqualTo((byte) 0);
    enc.encode(new float[] {Float.NaN, 0f}, 0, got);
    assertThat(got[0]).isEqualTo((byte) 0);
  }

  @Test
  void rowsAreReadFromTheirOffset() {
    SplittableRandom r = new SplittableRandom(3);
    FeatureParams p = params(16, 8, 256, r);
    FeatureEncoder enc = new FeatureEncoder(p);
    float[] rows = new float[3 * 16];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = (float) r.nextDouble(-1, 1);
    }
    byte[] got = new byte[2];
    enc.encode(rows, 32, got);
    assertThat(got).isEqualTo(reference(p, java.util.Arrays.copyOfRange(rows, 32, 48)));
  }
}
