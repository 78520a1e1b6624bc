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
  /**
   * Every type but the task's own (the target type of node classification, the two end types of the
   * link relation), whose features are used whatever the others have; on a one-type store the
   * store's only type is the target, so as {@link #OFF}.
   */
  NON_TARGET("non-target"),
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

  /**
   * Whether a type with {@code featureDim} features (0: none) gets a table under this mode; {@code
   * taskType}: whether it is one of the task's own types (the target, or an end of the link
   * relation; on a one-type store, the store).
   */
  public boolean embeds(int featureDim, boolean taskType) {
    return switch (this) {
      case ALL -> true;
      case AUTO -> featureDim == 0;
      case NON_TARGET -> !taskType;
      case OFF -> false;
    };
  }
}
