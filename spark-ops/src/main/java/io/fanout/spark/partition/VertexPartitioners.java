package io.fanout.spark.partition;

import io.fanout.conf.FanoutConfigException;
import io.fanout.graph.PartitionerKind;
import java.util.List;

/** The partitioners {@code --partitioner} can name. */
public final class VertexPartitioners {
  private VertexPartitioners() {}

  private static final List<VertexPartitioner> ALL =
      List.of(new HashPartitioner(), new RangePartitioner());

  /** The graph-aware partitioner's name. */
  public static final String MULTILEVEL = "multilevel";

  /** Names, for option docs. */
  public static String[] names() {
    String[] n = new String[ALL.size() + 1];
    for (int i = 0; i < ALL.size(); i++) {
      n[i] = ALL.get(i).name();
    }
    n[ALL.size()] = MULTILEVEL;
    return n;
  }

  /** The graph partitioner {@code kind} ({@link PartitionerKind#readsEdges}). */
  public static GraphPartitioner graph(PartitionerKind kind, int coarseVertices) {
    return graph(kind.id(), coarseVertices);
  }

  /** The vertex partitioner {@code kind} (not a graph partitioner). */
  public static VertexPartitioner of(PartitionerKind kind) {
    return byName(kind.id());
  }

  /** Whether {@code name} is a {@link GraphPartitioner} (it needs the edges). */
  public static boolean readsEdges(String name) {
    return MULTILEVEL.equals(name);
  }

  /**
   * The graph partitioner {@code name}.
   *
   * @param coarseVertices coarsening stops at this many vertices; the coarse graph is then
   *     partitioned in the driver
   */
  public static GraphPartitioner graph(String name, int coarseVertices) {
    if (!readsEdges(name)) {
      throw new FanoutConfigException(
          "'" + name + "' is not a graph partitioner; known: " + MULTILEVEL);
    }
    if (coarseVertices < 1) {
      throw new FanoutConfigException(
          "--partition-coarse-vertices must be >= 1, got " + coarseVertices);
    }
    return new MultilevelGraphPartitioner(
        coarseVertices,
        MultilevelGraphPartitioner.VERTICES_PER_TASK,
        MultilevelGraphPartitioner.DRIVER_VERTICES,
        MultilevelGraphPartitioner.DRIVER_EDGES);
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
