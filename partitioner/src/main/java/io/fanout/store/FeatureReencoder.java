package io.fanout.store;

import java.nio.file.Path;

/** Rewrites one f32 feature part file in another encoding, row by row. */
public final class FeatureReencoder {
  private FeatureReencoder() {}

  /**
   * Reads the f32 rows of {@code src} and writes them to {@code dst} encoded with {@code params}.
   *
   * @return the number of rows written
   */
  public static long reencode(Path src, Path dst, long firstVertex, FeatureParams params) {
    FeatureEncoder enc = new FeatureEncoder(params);
    float[] row = new float[params.dim];
    byte[] encoded = new byte[params.rowBytes()];
    try (FeatureFileReader in = new FeatureFileReader(src, params.dim, 0);
        FeatureFileWriter out = new FeatureFileWriter(dst, firstVertex, in.numVertices(), params)) {
      long n = in.numVertices();
      for (long i = 0; i < n; i++) {
        in.next(row, 0);
        enc.encode(row, 0, encoded);
        out.writeEncodedRow(encoded);
      }
      out.finish();
      return n;
    }
  }
}
