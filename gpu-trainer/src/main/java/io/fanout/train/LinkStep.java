package io.fanout.train;

import io.fanout.nn.DotDecoder;
import io.fanout.nn.GnnModel;
import io.fanout.nn.MlpDecoder;
import io.fanout.sample.LinkPairs;
import java.util.Arrays;

/**
 * The loss of a link-prediction batch ({@code sample --task link} shards): the encoder's output
 * rows are the seed nodes' embeddings, each pair is scored by the model's decoder ({@link
 * DotDecoder}, or the {@link MlpDecoder} of a {@code --decoder mlp} model) and the loss is the mean
 * binary cross-entropy over the pairs. "Correct" counts pairs whose score has the label's sign
 * (score > 0 for positives).
 */
final class LinkStep {
  private LinkStep() {}

  /** Model dir identity key naming the task of a link-prediction model. */
  static final String TASK = "task";

  /** Pairs an {@link MlpDecoder} scores at once outside training (bounds its buffers). */
  static final int SCORE_CHUNK = 1 << 16;

  /**
   * Summed loss, pairs and correct pairs; writes the mean loss's gradient with respect to {@code
   * emb} into {@code dEmb} when it is not null. An {@link MlpDecoder}'s parameter gradients are
   * accumulated into the model's gradient tensor, which must be zeroed before.
   *
   * @param emb {@code rows x dim} embeddings of the batch's seed nodes
   */
  static StepStats lossAndGrad(
      GnnModel model, float[] emb, int rows, int dim, LinkPairs p, float[] dEmb) {
    int n = p.size();
    float[] scores = new float[n];
    MlpDecoder mlp = model.decoder();
    double loss;
    if (mlp == null) {
      DotDecoder.scores(emb, dim, p.src(), p.dst(), n, scores);
      loss =
          DotDecoder.lossAndGrad(
              emb, rows, dim, p.src(), p.dst(), p.label(), scores, n == 0 ? 0f : 1f / n, dEmb);
    } else {
      mlp.scores(model.paramTensor(), emb, p.src(), p.dst(), n, scores);
      loss = 0;
      float[] dScore = new float[n];
      for (int i = 0; i < n; i++) {
        double s = scores[i];
        loss += DotDecoder.loss(s, p.label()[i]);
        dScore[i] = (float) ((1 / (1 + Math.exp(-s)) - p.label()[i]) / n);
      }
      if (dEmb != null) {
        Arrays.fill(dEmb, 0, rows * dim, 0f);
        mlp.backward(model.paramTensor(), model.gradTensor(), emb, p.src(), p.dst(), dScore, dEmb);
      }
    }
    int correct = 0;
    for (int i = 0; i < n; i++) {
      correct += (scores[i] > 0) == (p.label()[i] == 1) ? 1 : 0;
    }
    return new StepStats(loss, n, correct);
  }

  /**
   * Scores {@code n} pairs of the embeddings {@code emb} (rows of width {@code dim}) with the
   * model's decoder into {@code out}, without touching gradients.
   */
  static void scores(
      GnnModel model, float[] emb, int dim, int[] src, int[] dst, int n, float[] out) {
    MlpDecoder mlp = model.decoder();
    if (mlp == null) {
      DotDecoder.scores(emb, dim, src, dst, n, out);
      return;
    }
    float[] part = new float[Math.min(n, SCORE_CHUNK)];
    for (int from = 0; from < n; from += SCORE_CHUNK) {
      int to = Math.min(n, from + SCORE_CHUNK);
      int[] s = Arrays.copyOfRange(src, from, to);
      int[] d = Arrays.copyOfRange(dst, from, to);
      mlp.scores(model.paramTensor(), emb, s, d, to - from, part);
      System.arraycopy(part, 0, out, from, to - from);
    }
  }
}
