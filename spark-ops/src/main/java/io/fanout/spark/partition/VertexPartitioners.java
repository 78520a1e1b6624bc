package io.fanout.spark.partition;

import io.fanout.conf.FanoutConfigException;
import java.util.List;

/** The partitioners {@code --partitioner} can name. */
public final class VertexPartitioners {
  private VertexPartitioners() {}

  private static final List<VertexPartitioner> ALL =
      List.of(new HashPartitioner(), new RangePartitioner());

  /** Names, for option docs. */
  public static String[] names() {
    String[] n = new String[ALL.size()];
    for (int i = 0; i < n.length; i++) {
      n[i] = ALL.get(i).name();
    }
    return n;
  }

  public static VertexPartitioner byName(String name) {
    for (VertexPartitioner p : ALL) {
      if (p.name().equals(name)) {
        return p;
      }
    }
    throw new FanoutConfigException(
        "unknown partitioner '" + name + "'; known: " + String.join(", ", names()));
  }
}
