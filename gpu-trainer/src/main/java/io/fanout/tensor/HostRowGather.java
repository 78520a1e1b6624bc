package io.fanout.tensor;

/**
 * Gathers decoded feature rows by id on the host: how the CPU backends read a table's rows in place
 * ({@link Backend#mapFeatureRows}). The caller gives the gather of the rows' owner (a graph
 * store's, over its memory mapping), so the backend decodes nothing itself.
 */
@FunctionalInterface
public interface HostRowGather {
  /**
   * Writes the decoded rows of {@code ids[from .. from+count)} into the {@code count x dim} matrix
   * at {@code out[outOffset ..)}.
   */
  void gather(int[] ids, int from, int count, float[] out, int outOffset);
}
