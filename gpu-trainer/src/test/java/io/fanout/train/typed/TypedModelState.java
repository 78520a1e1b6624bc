package io.fanout.train.typed;

import io.fanout.nn.EmbeddingTable;
import io.fanout.nn.typed.TypedModel;
import java.util.Arrays;

/** A typed model's whole trained state as one array, for bit-for-bit comparisons in tests. */
final class TypedModelState {
  private TypedModelState() {}

  /** The dense parameters, then every embedding table's values, in type order. */
  static float[] of(TypedModel m) {
    float[] p = m.params();
    for (int ty = 0; ty < m.config().numTypes(); ty++) {
      EmbeddingTable e = m.embeddings(ty);
      if (e != null) {
        float[] v = e.chunks(0)[0];
        float[] both = Arrays.copyOf(p, p.length + v.length);
        System.arraycopy(v, 0, both, p.length, v.length);
        p = both;
      }
    }
    return p;
  }
}
