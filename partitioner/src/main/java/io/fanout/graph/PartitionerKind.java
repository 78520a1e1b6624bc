package io.fanout.graph;

import io.fanout.store.EnumSpellings;

/**
 * How {@code prepare --partitioner} assigns vertices to partitions: by hashing their ids, by id
 * ranges, or by the multilevel graph partitioner (the only one that reads the edges).
 */
public enum PartitionerKind {
  HASH("hash"),
  RANGE("range"),
  MULTILEVEL("multilevel");

  private final String id;

  PartitionerKind(String id) {
    this.id = id;
  }

  /** The spelling in options and plans, e.g. {@code multilevel}. */
  public String id() {
    return id;
  }

  /** Whether this partitioner reads the edges (a graph partitioner). */
  public boolean readsEdges() {
    return this == MULTILEVEL;
  }

  /**
   * The value spelled {@code raw}, compared case-insensitively after trimming.
   *
   * @throws IllegalArgumentException "expected one of hash|range|multilevel"
   */
  public static PartitionerKind parse(String raw) {
    return EnumSpellings.parse(raw, values(), PartitionerKind::id);
  }
}
