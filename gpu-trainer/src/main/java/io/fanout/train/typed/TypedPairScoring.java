package io.fanout.train.typed;

import io.fanout.graph.TypedGraphStore;
import io.fanout.store.InvalidInputException;
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
        throw new InvalidInputException(
            "the model in "
                + r.modelDir()
                + " is a node classifier; scoring pairs needs a model trained on sample --task"
                + " link shards");
      }
      CandidatePairs p = r.pairs();
      long ns = g.schema().type(task.srcType()).count();
      long nd = g.schema().type(task.dstType()).count();
      for (int i = 0; i < p.size(); i++) {
        if (p.src()[i] < 0 || p.src()[i] >= ns || p.dst()[i] < 0 || p.dst()[i] >= nd) {
          throw new InvalidInputException(
              "candidate pair "
                  + i
                  + " has type-local ids ("
                  + p.src()[i]
                  + ", "
                  + p.dst()[i]
                  + ") outside types '"
                  + g.schema().type(task.srcType()).name()
                  + "' and '"
                  + g.schema().type(task.dstType()).name()
                  + "' of "
                  + g.root());
        }
      }
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
