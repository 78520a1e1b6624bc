package io.fanout.train;

import io.fanout.nn.DotDecoder;
import io.fanout.sample.LinkPairs;

/**
 * The loss of a link-prediction batch ({@code sample --task link} shards): the encoder's output
 * rows are the seed nodes' embeddings, each pair is scored by the {@link DotDecoder} and the loss
 * is the mean binary cross-entropy over the pairs. "Correct" counts pairs whose score has the
 * label's sign (score > 0 for positives).
 */
final class LinkStep {
  private LinkStep() {}

  /** Model dir identity key naming the task of a link-prediction model. */
  static final String TASK = "task";

  /**
   * Summed loss, pairs and correct pairs; writes the mean loss's gradient with respect to {@code
   * emb} into {@code dEmb} when it is not null.
   *
   * @param emb {@code rows x dim} embeddings of the batch's seed nodes
   */
  static StepStats lossAndGrad(float[] emb, int rows, int dim, LinkPairs p, float[] dEmb) {
    int n = p.size();
    float[] scores = new float[n];
    DotDecoder.scores(emb, dim, p.src(), p.dst(), n, scores);
    double loss =
        DotDecoder.lossAndGrad(
            emb, rows, dim, p.src(), p.dst(), p.label(), scores, n == 0 ? 0f : 1f / n, dEmb);
    int correct = 0;
    for (int i = 0; i < n; i++) {
      correct += (scores[i] > 0) == (p.label()[i] == 1) ? 1 : 0;
    }
    return new StepStats(loss, n, correct);
  }
}
