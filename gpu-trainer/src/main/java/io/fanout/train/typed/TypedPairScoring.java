package io.fanout.train.typed;

import io.fanout.graph.TypedGraphStore;
import io.fanout.train.CandidatePairs;
import io.fanout.train.PairScoring;

/**
 * {@code infer --task link --pairs} of a typed link model: the candidate pairs (sources of its
 * relation's source type, destinations of its destination type, type-local ids) scored over
 * full-neighbor embeddings ({@link TypedModelEvaluation#linkScores}) and written as the one-type
 * pair scores are ({@link PairScoring#write}).
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
      CandidatePairs p = r.pairs();
      p.requireInside(
          g.schema().type(task.srcType()).count(),
          g.schema().type(task.dstType()).count(),
          "type-local ids",
          "outside types '"
              + g.schema().type(task.srcType()).name()
              + "' and '"
              + g.schema().type(task.dstType()).name()
              + "' of "
              + g.root());
      return PairScoring.write(
          p,
          g.manifest().fingerprint(),
          r,
          pairs ->
              TypedModelEvaluation.linkScores(
                  g, r.modelDir(), r.pick(), pairs.src(), pairs.dst(), null, BATCH, 0L));
    }
  }
}
