package io.fanout.train.typed;

import io.fanout.nn.typed.ReusedBottom;
import io.fanout.sample.TypedMiniBatch;

/**
 * A typed batch ready for the step: its blocks and, per type that reads features, the input rows of
 * its nodes of that type (row-major, already normalized; null for embedded types). A loader's
 * reusable holder: hand it back through {@link TypedBatchStream#recycle} when done.
 *
 * <p>With hot reuse ({@code train --reuse-hot}) the loader thread prunes the batch's bottom hop
 * once ({@link TypedHotPruner}): {@link #reused} is then the pruned hop (null when it had no hot
 * row), {@link #prunedFor} the hot set it was pruned for, and the input rows are the pruned hop's.
 */
public final class TypedInputs {
  final int owner;
  TypedMiniBatch batch;
  float[][] features;
  ReusedBottom reused;
  TypedHotSet prunedFor;

  /** A holder of the pool of loader thread {@code owner} (-1: none). */
  TypedInputs(int owner) {
    this.owner = owner;
  }

  /** A standalone batch with its features (not from a loader's pool). */
  static TypedInputs of(TypedMiniBatch batch, float[][] features) {
    TypedInputs in = new TypedInputs(-1);
    in.batch = batch;
    in.features = features;
    return in;
  }

  public TypedMiniBatch batch() {
    return batch;
  }

  public float[][] features() {
    return features;
  }

  /** Drops what the holder held, for its next batch. */
  void clear() {
    batch = null;
    features = null;
    reused = null;
    prunedFor = null;
  }

  /**
   * What a loader does to a batch it read before handing it to the step (on its own thread): its
   * input rows ({@link #features}) of the batch {@link #prune} leaves; a loader for hot reuse
   * overrides {@link #prune} to prune the bottom hop first, so that only the pruned hop's rows are
   * read. A stream that reads the rows itself (a feature cache, {@link TypedCachedStream}) calls
   * {@link #prune} and reads the rows of the batch it returns.
   */
  @FunctionalInterface
  public interface Preparer {
    /** The input rows of {@code b}'s nodes, per type (null for embedded types). */
    float[][] features(TypedMiniBatch b);

    /**
     * Prunes {@code in}'s batch for the step where it reuses rows (setting {@link #reused} and
     * {@link #prunedFor}); returns the batch whose input rows the step reads: {@code in.batch()}
     * itself by default.
     */
    default TypedMiniBatch prune(TypedInputs in) {
      return in.batch;
    }

    /** Fills {@code in}'s input rows (and what else the step reads) from {@code in.batch()}. */
    default void prepare(TypedInputs in) {
      in.features = features(prune(in));
    }
  }
}
