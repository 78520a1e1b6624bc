package io.fanout.nn;

import io.fanout.store.EnumSpellings;

/**
 * Which vertex types get a learned embedding table ({@code --learned-embeddings}): one trainable
 * vector of the hidden width per vertex, in place of a projection of its features.
 */
public enum EmbeddingMode {
  /** The types without features (the default). */
  AUTO("auto"),
  /** Every type, its features (if any) unused. */
  ALL("all"),
  /** None: a type without features is refused. */
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
