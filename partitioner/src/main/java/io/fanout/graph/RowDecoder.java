package io.fanout.graph;

import io.fanout.store.FeatureParams;
import io.fanout.store.StoreLayout;
import java.nio.ByteBuffer;

/**
 * Decodes one stored feature row to float32, with no allocation: the readers' half of {@link
 * io.fanout.store.FeatureEncoder}. One implementation per encoding; all are thread-safe.
 */
public interface RowDecoder {
  /** Bytes of one stored row. */
  int rowBytes();

  /**
   * Decodes the row at {@code rows[pos .. pos + rowBytes())} (absolute, little-endian; the buffer's
   * position is not used) into {@code dst[dstOff .. dstOff + dim)}.
   */
  void decode(ByteBuffer rows, int pos, float[] dst, int dstOff);

  /** The decoder of rows written with {@code params}. */
  static RowDecoder of(FeatureParams params) {
    switch (params.encoding) {
      case StoreLayout.ENCODING_F32:
        return new F32RowDecoder(params.dim);
      case StoreLayout.ENCODING_F16:
        return new F16RowDecoder(params.dim);
      case StoreLayout.ENCODING_INT8:
        return new Int8RowDecoder(params);
      case StoreLayout.ENCODING_INT4:
        return new Int4RowDecoder(params);
      case StoreLayout.ENCODING_PQ:
        return new PqRowDecoder(params);
      default:
        throw new IllegalArgumentException("unknown feature encoding " + params.encoding);
    }
  }
}
