package io.fanout.nn.typed;

import io.fanout.graph.ArrayTypedGraph;
import io.fanout.tensor.CounterRng;

/** Small seeded typed graphs for the typed model's tests. */
public final class TypedTestGraphs {
  private TypedTestGraphs() {}

  /**
   * paper (24, 3 features, 3 classes), author (18, 2 features), term (10, no features); relations
   * writes (author -> paper), written_by (paper -> author), has_term (term -> paper), cites (paper
   * -> paper).
   */
  public static ArrayTypedGraph small(long seed) {
    int papers = 24;
    int authors = 18;
    int terms = 10;
    int[] labels = new int[papers];
    byte[] splits = new byte[papers];
    for (int i = 0; i < papers; i++) {
      labels[i] = i % 3;
      splits[i] = (byte) (i < 16 ? 1 : i < 20 ? 2 : 3);
    }
    return ArrayTypedGraph.builder()
        .type("paper", papers, 3, values(seed, 1, papers * 3), labels, splits)
        .type("author", authors, 2, values(seed, 2, authors * 2), null, null)
        .type("term", terms, 0, null, null, null)
        .relation(
            "writes", "author", "paper", ends(seed, 3, 50, authors), ends(seed, 4, 50, papers))
        .relation(
            "written_by", "paper", "author", ends(seed, 4, 50, papers), ends(seed, 3, 50, authors))
        .relation("has_term", "term", "paper", ends(seed, 5, 40, terms), ends(seed, 6, 40, papers))
        .relation("cites", "paper", "paper", ends(seed, 7, 30, papers), ends(seed, 8, 30, papers))
        .build();
  }

  static float[] values(long seed, int stream, int n) {
    float[] a = new float[n];
    long key = CounterRng.key(seed, stream, 0, 0);
    for (int i = 0; i < n; i++) {
      a[i] = 2f * CounterRng.uniform(key, i) - 1f;
    }
    return a;
  }

  static int[] ends(long seed, int stream, int n, int range) {
    int[] a = new int[n];
    long key = CounterRng.key(seed, stream, 1, 0);
    for (int i = 0; i < n; i++) {
      a[i] = (int) (CounterRng.uniform(key, i) * range);
    }
    return a;
  }
}
