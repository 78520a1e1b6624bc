package io.fanout.tensor;

import java.nio.ByteBuffer;

/**
 * Decodes one encoded feature row to float32 on the host, with no allocation: what the CPU backends
 * run over pages that hold encoded rows ({@link Backend#pagedFeatureRows}). The caller gives the
 * decoder of the rows' owner (a graph store's), so every reader decodes the same way.
 */
@FunctionalInterface
public interface HostRowDecoder {
  /**
   * Decodes the row at {@code rows[pos ..)} (absolute, little-endian; the buffer's position is not
   * used) into {@code dst[dstOff .. dstOff + dim)}.
   */
  void decode(ByteBuffer rows, int pos, float[] dst, int dstOff);
}
