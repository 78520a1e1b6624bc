package io.fanout.nn;

import io.fanout.store.EnumSpellings;

/**
 * Which vertices get a learned embedding table ({@code --learned-embeddings}): one trainable vector
 * of the hidden width per vertex, in place of its features. On a typed store it is decided per
 * vertex type, on a one-type store for the store ({@link io.fanout.train.TrainSpec.FeatureSource}).
 */
public enum EmbeddingMode {
  /** The types (or the one-type store) without features: the default. */
  AUTO("auto"),
  /** Every type, its features (if any) unused. */
  ALL("all"),
  /** None: a type (or a one-type store) without features is refused. */
  OFF("off");

  private final String id;

  EmbeddingMode(String id) {
    this.id = id;
  }

  public String id() {
    return id;
  }

  public static EmbeddingMode parse(String raw) {
    return EnumSpellings.parse(raw, values(), EmbeddingMode::id);
  }

  /** Whether a type with {@code featureDim} features (0: none) gets a table under this mode. */
  public boolean embeds(int featureDim) {
    return this == ALL || (this == AUTO && featureDim == 0);
  }
}
