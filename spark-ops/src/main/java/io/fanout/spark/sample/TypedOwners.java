package io.fanout.spark.sample;

import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedSchema;
import java.io.Serializable;

/**
 * The owners of the partitioned mode on a typed store: every store partition of every vertex type,
 * numbered types in order, then partitions in order ({@code owner = first(t) + p}), with the
 * type-local ids each holds; and the relations' endpoint types, which is all the batch assembly
 * needs of the schema. Shipped to every task.
 */
final class TypedOwners implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * {@code starts[t][p]}: type {@code t}'s partition {@code p} holds {@code [starts[t][p],
   * starts[t][p+1])}.
   */
  private final long[][] starts;

  private final int[] firstOwner;
  private final int[] typeOf;
  final int[] srcType;
  final int[] dstType;

  /** Per type, whether its vertices carry label sets. */
  final boolean[] multiLabel;

  TypedOwners(long[][] starts, int[] srcType, int[] dstType, boolean[] multiLabel) {
    this.starts = starts;
    this.multiLabel = multiLabel;
    this.srcType = srcType;
    this.dstType = dstType;
    firstOwner = new int[starts.length + 1];
    for (int t = 0; t < starts.length; t++) {
      firstOwner[t + 1] = firstOwner[t] + starts[t].length - 1;
    }
    typeOf = new int[firstOwner[starts.length]];
    for (int t = 0; t < starts.length; t++) {
      for (int o = firstOwner[t]; o < firstOwner[t + 1]; o++) {
        typeOf[o] = t;
      }
    }
  }

  /** The store partitions of {@code g} ({@link TypedGraph#partitionStarts}) and its relations. */
  static TypedOwners of(TypedGraph g) {
    TypedSchema s = g.schema();
    long[][] starts = new long[s.numTypes()][];
    boolean[] multiLabel = new boolean[s.numTypes()];
    for (int t = 0; t < starts.length; t++) {
      multiLabel[t] = s.type(t).multiLabel();
      starts[t] = g.partitionStarts(t).clone();
      if (starts[t].length < 2
          || starts[t][0] != 0
          || starts[t][starts[t].length - 1] != s.type(t).count()) {
        throw new IllegalStateException(
            "partitions of type " + s.type(t).name() + " do not cover its vertices");
      }
    }
    int[] src = new int[s.numRelations()];
    int[] dst = new int[s.numRelations()];
    for (int r = 0; r < src.length; r++) {
      src[r] = s.relation(r).srcType();
      dst[r] = s.relation(r).dstType();
    }
    return new TypedOwners(starts, src, dst, multiLabel);
  }

  int numTypes() {
    return starts.length;
  }

  int numRelations() {
    return srcType.length;
  }

  /** Every owner: one per store partition of every type. */
  int count() {
    return typeOf.length;
  }

  /** The owner of type {@code t}'s partition 0. */
  int first(int t) {
    return firstOwner[t];
  }

  /** The number of partitions of type {@code t}. */
  int partitions(int t) {
    return firstOwner[t + 1] - firstOwner[t];
  }

  /** Type {@code t}'s partition starts, its count last (shared; do not write). */
  long[] starts(int t) {
    return starts[t];
  }

  /** The vertex type of {@code owner}'s partition. */
  int type(int owner) {
    return typeOf[owner];
  }

  /** {@code owner}'s partition index within its type. */
  int part(int owner) {
    return owner - firstOwner[typeOf[owner]];
  }
}
