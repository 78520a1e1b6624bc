package io.fanout.train.typed;

import io.fanout.graph.TypedGraphStore;
import io.fanout.train.PairScoring;

/**
 * {@code infer --task link --pairs} of a typed link model: the candidate pairs (sources of its
 * relation's source type, destinations of its destination type, type-local ids) scored over
 * full-neighbor embeddings ({@link TypedModelEvaluation#linkScores}, a chunk of pairs at a time:
 * each chunk embeds the vertices it names) and written as the one-type pair scores are ({@link
 * PairScoring#write}).
 */
public final class TypedPairScoring {
  /**
   * Vertices per batch of the embedding passes (full neighborhoods: scores do not depend on it).
   */
  static final int BATCH = 1024;

  private TypedPairScoring() {}

  public static PairScoring.Outcome score(PairScoring.Request r) {
    try (TypedGraphStore g = TypedGraphStore.open(r.graph(), r.verify())) {
      TypedLinkTask task = TypedModelEvaluation.linkTask(r.modelDir(), r.pick(), g.schema());
      if (task == null) {
        throw PairScoring.notALinkModel(r.modelDir());
      }
      String range =
          "outside types '"
              + g.schema().type(task.srcType()).name()
              + "' and '"
              + g.schema().type(task.dstType()).name()
              + "' of "
              + g.root();
      long sources = g.schema().type(task.srcType()).count();
      long destinations = g.schema().type(task.dstType()).count();
      return PairScoring.write(
          r,
          g.manifest().fingerprint(),
          (first, p) -> p.requireInside(sources, destinations, "type-local ids", range, first),
          () ->
              pairs ->
                  TypedModelEvaluation.linkScores(
                      g, r.modelDir(), r.pick(), pairs.src(), pairs.dst(), null, BATCH, 0L));
    }
  }
}
