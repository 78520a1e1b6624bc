package io.fanout.train.typed;

import io.fanout.sample.TypedMiniBatch;

/**
 * A typed batch ready for the step: its blocks and, per type that reads features, the input rows of
 * its nodes of that type (row-major, already normalized; null for embedded types). A loader's
 * reusable holder: hand it back through {@link TypedBatchStream#recycle} when done.
 */
public final class TypedInputs {
  final int owner;
  TypedMiniBatch batch;
  float[][] features;

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
}
