package io.fanout.store;

/**
 * Encodes float32 feature rows as {@link FeatureParams} say: the inverse of the readers' {@code
 * RowDecoder}. Stateless and thread-safe; callers own their {@code dst} arrays.
 */
public final class FeatureEncoder {
  private final FeatureParams p;
  private final int dim;

  public FeatureEncoder(FeatureParams params) {
    this.p = params;
    this.dim = params.dim;
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

  /** Each group's nearest centroid (squared L2, the lowest index on ties). */
  private void encodePq(float[] src, int off, byte[] dst) {
    float[] cb = p.codebooks();
    int k = p.centroids;
    int groups = p.groups();
    for (int g = 0; g < groups; g++) {
      int w = p.width(g);
      int col = off + g * p.groupSize;
      int base = k * g * p.groupSize;
      int best = 0;
      double bestDist = Double.MAX_VALUE;
      for (int c = 0; c < k; c++) {
        int at = base + c * w;
        double d = 0;
        for (int j = 0; j < w && d < bestDist; j++) {
          double diff = (double) src[col + j] - cb[at + j];
          d += diff * diff;
        }
        if (d < bestDist) {
          bestDist = d;
          best = c;
        }
      }
      dst[g] = (byte) best;
    }
  }
}
