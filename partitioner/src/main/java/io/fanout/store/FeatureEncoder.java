package io.fanout.store;

/**
 * Encodes float32 feature rows as {@link FeatureParams} say: the inverse of the readers' {@code
 * RowDecoder}. Not thread-safe (a pq encoder keeps a distance buffer): one encoder per thread;
 * callers own their {@code dst} arrays.
 */
public final class FeatureEncoder {
  private final FeatureParams p;
  private final int dim;

  /**
   * pq: the codebooks in double precision, each group's laid out column by column ({@code [group
   * base + j * centroids + c]}), so one column's differences to every centroid are one loop over
   * contiguous memory that the JIT vectorizes.
   */
  private final double[] columns;

  /** pq: the squared distance of the current group to each centroid. */
  private final double[] dist;

  public FeatureEncoder(FeatureParams params) {
    this.p = params;
    this.dim = params.dim;
    if (params.encoding == StoreLayout.ENCODING_PQ) {
      int k = params.centroids;
      float[] cb = params.codebooks();
      columns = new double[cb.length];
      for (int g = 0; g < params.groups(); g++) {
        int w = params.width(g);
        int base = k * g * params.groupSize;
        for (int c = 0; c < k; c++) {
          for (int j = 0; j < w; j++) {
            columns[base + j * k + c] = cb[base + c * w + j];
          }
        }
      }
      dist = new double[k];
    } else {
      columns = null;
      dist = null;
    }
  }

  public FeatureParams params() {
    return p;
  }

  public int rowBytes() {
    return p.rowBytes();
  }

  /** Encodes {@code src[off .. off + dim)} into {@code dst[0 .. rowBytes())}. */
  public void encode(float[] src, int off, byte[] dst) {
    switch (p.encoding) {
      case StoreLayout.ENCODING_F32:
        for (int c = 0; c < dim; c++) {
          int bits = Float.floatToRawIntBits(src[off + c]);
          dst[4 * c] = (byte) bits;
          dst[4 * c + 1] = (byte) (bits >>> 8);
          dst[4 * c + 2] = (byte) (bits >>> 16);
          dst[4 * c + 3] = (byte) (bits >>> 24);
        }
        break;
      case StoreLayout.ENCODING_F16:
        for (int c = 0; c < dim; c++) {
          short h = Half.fromFloat(src[off + c]);
          dst[2 * c] = (byte) h;
          dst[2 * c + 1] = (byte) (h >>> 8);
        }
        break;
      case StoreLayout.ENCODING_INT8:
        for (int c = 0; c < dim; c++) {
          dst[c] = (byte) level(src[off + c], c, 255);
        }
        break;
      case StoreLayout.ENCODING_INT4:
        java.util.Arrays.fill(dst, 0, p.rowBytes(), (byte) 0);
        for (int c = 0; c < dim; c++) {
          dst[c >>> 1] |= (byte) (level(src[off + c], c, 15) << ((c & 1) << 2));
        }
        break;
      case StoreLayout.ENCODING_PQ:
        encodePq(src, off, dst);
        break;
      default:
        throw new IllegalStateException("unknown feature encoding " + p.encoding);
    }
  }

  /** The affine level of {@code x} in column {@code c}, rounded to nearest and clamped. */
  private int level(float x, int c, int max) {
    float s = p.scale()[c];
    if (s == 0f) {
      return 0;
    }
    long q = Math.round(((double) x - p.offset()[c]) / s);
    return (int) Math.max(0, Math.min(max, q));
  }

  /**
   * Each group's nearest centroid (squared L2, the lowest index on ties). Every centroid's distance
   * is summed column by column in double precision, the same operations in the same order as one
   * centroid at a time, so the codes do not depend on the loop order.
   */
  private void encodePq(float[] src, int off, byte[] dst) {
    int k = p.centroids;
    int groups = p.groups();
    double[] d = dist;
    double[] cols = columns;
    for (int g = 0; g < groups; g++) {
      int w = p.width(g);
      int col = off + g * p.groupSize;
      int base = k * g * p.groupSize;
      java.util.Arrays.fill(d, 0, k, 0.0);
      for (int j = 0; j < w; j++) {
        double x = src[col + j];
        int at = base + j * k;
        for (int c = 0; c < k; c++) {
          double e = x - cols[at + c];
          d[c] += e * e;
        }
      }
      int best = 0;
      double bestDist = Double.MAX_VALUE;
      for (int c = 0; c < k; c++) {
        if (d[c] < bestDist) {
          bestDist = d[c];
          best = c;
        }
      }
      dst[g] = (byte) best;
    }
  }
}
