package io.fanout.spark.prepare;

import io.fanout.store.FeatureLayoutKind;
import java.util.List;

/**
 * The plan of the typed feature layout step ({@code --feature-layout seed-groups} or {@code
 * neighborhood}, {@link TypedFeatureLayoutStage}) from the row counts the typed plan already has.
 *
 * <p>Shuffle: the step's two reduction rounds shuffle (global id, first-use key) pairs. Round one
 * lists each seed and each of its in-neighbors over the relations into the target type; round two
 * shuffles round one's reduced pairs (one per vertex reached) again with the in-neighbors of every
 * vertex reached at hop one over the relations into its type. Footers carry no split counts, so
 * every target vertex counts as a seed, each relation's edges reach distinct sources up to the
 * source type's vertices, and {@code reduceByKey}'s map-side combining is not counted: an upper
 * bound in rows. {@code neighborhood} adds a third round: one (global id, group) pair per edge of
 * every relation whose source type has features, not combined. A pair is counted as a two-field row
 * ({@link PreparePlanner#unsafeRow}) at the edge rows' ratio, unmeasured for these pairs ({@link
 * ShuffleCodec#unmeasuredRowRatio}).
 *
 * <p>Disk: until the step ends each featured partition keeps its feature file at the rows' ids
 * beside the laid-out one, so the staging folder holds every featured type's feature files twice.
 */
final class TypedLayoutPlanner {
  private TypedLayoutPlanner() {}

  /** Bytes a task holds per vertex of its partition: keys, the sorted keys and the positions. */
  private static final long BYTES_PER_VERTEX = 3 * 8 + 3 * 4;

  /** Bytes of an (id, key) pair a task holds in its primitive arrays. */
  private static final long BYTES_PER_PAIR = 16;

  /**
   * {@code neighborhood}'s extra bytes a task holds per vertex (own and ranked groups, the bucket
   * starts, the group each row joins, the group sort's counts and order) and per (id, group) pair
   * it receives (the group among the ranked ones, its rank).
   */
  private static final long REGROUP_BYTES_PER_VERTEX = 8 + 8 + 2 * 4 + 4 + 3 * 4;

  private static final long REGROUP_BYTES_PER_PAIR = 8 + 4;

  /**
   * One vertex type: its vertices, the bytes of its feature files (0 without features) and its
   * largest partition's vertices.
   */
  record Type(String name, long vertices, long featureFileBytes, long largestPartition) {}

  /** One relation of the store (the reverses {@code --add-reverse} adds included). */
  record Relation(String srcType, String dstType, long edges) {}

  /** The step's figures: shuffled bytes, the staging folder's extra bytes, its stage. */
  record Estimate(long shuffleBytes, long stagingBytes, PreparePlan.Stage stage) {}

  /** The pairs the layout's rounds shuffle, as bounded in the class doc. */
  static long pairs(
      List<Type> types, List<Relation> relations, String target, FeatureLayoutKind kind) {
    long drawnBy = 0;
    if (kind == FeatureLayoutKind.NEIGHBORHOOD) {
      for (Relation r : relations) {
        for (Type t : types) {
          if (t.name.equals(r.srcType) && t.featureFileBytes > 0) {
            drawnBy += r.edges;
          }
        }
      }
    }
    long seeds = 0;
    long hopOne = 0;
    long reached = 0;
    long hopTwo = 0;
    for (Type t : types) {
      if (t.name.equals(target)) {
        seeds = t.vertices;
      }
    }
    hopOne += seeds;
    for (Type t : types) {
      long fromTarget = 0; // edges from t into the target type
      for (Relation r : relations) {
        if (r.dstType.equals(target) && r.srcType.equals(t.name)) {
          fromTarget += r.edges;
        }
      }
      hopOne += fromTarget;
      long expands = Math.min(t.vertices, fromTarget); // t's vertices reached at hop one
      reached += t.name.equals(target) ? t.vertices : expands;
      if (t.vertices > 0) {
        long into = 0; // edges into t
        for (Relation r : relations) {
          if (r.dstType.equals(t.name)) {
            into += r.edges;
          }
        }
        hopTwo += Math.round((double) expands * into / t.vertices);
      }
    }
    return hopOne + reached + hopTwo + drawnBy;
  }

  /** The figures of the step named {@code step}, whose store has {@code globalPartitions}. */
  static Estimate estimate(
      String step,
      List<Type> types,
      List<Relation> relations,
      String target,
      FeatureLayoutKind kind,
      int globalPartitions,
      ShuffleCodec codec) {
    long pairs = pairs(types, relations, target, kind);
    long shuffle =
        Math.round(
            pairs
                * PreparePlanner.unsafeRow(2, 0)
                * codec.unmeasuredRowRatio(PreparePlanner.EDGE_SHUFFLE_RATIO));
    long staging = 0;
    long largest = 0;
    for (Type t : types) {
      staging += t.featureFileBytes;
      largest = Math.max(largest, t.largestPartition);
    }
    long taskPairs = pairs / Math.max(1, globalPartitions);
    boolean regroup = kind == FeatureLayoutKind.NEIGHBORHOOD;
    long perVertex = BYTES_PER_VERTEX + (regroup ? REGROUP_BYTES_PER_VERTEX : 0);
    long perPair = BYTES_PER_PAIR + (regroup ? REGROUP_BYTES_PER_PAIR : 0);
    PreparePlan.Stage stage =
        new PreparePlan.Stage(
            step,
            largest * perVertex + taskPairs * perPair,
            "the largest partition's first-use keys"
                + (regroup ? ", groups" : "")
                + " and row order ("
                + perVertex
                + " bytes a vertex) and a task's share of the (id, key"
                + (regroup ? " or group" : "")
                + ") pairs ("
                + perPair
                + " bytes a pair)");
    return new Estimate(shuffle, staging, stage);
  }
}
