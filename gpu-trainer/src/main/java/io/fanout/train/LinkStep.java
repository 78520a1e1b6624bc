package io.fanout.train;

import io.fanout.nn.DotDecoder;
import io.fanout.nn.GnnModel;
import io.fanout.nn.MlpDecoder;
import io.fanout.nn.NormalizedEmbeddings;
import io.fanout.sample.LinkPairs;
import io.fanout.tensor.FloatTensor;
import java.util.Arrays;
import java.util.Map;

/**
 * The loss and the pair scores of link-prediction models ({@code sample --task link} shards): the
 * encoder's output rows are the nodes' embeddings, L2-normalised ({@link NormalizedEmbeddings}),
 * and each pair is scored by the {@link DotDecoder} times {@link #LOGIT_SCALE}, a scaled cosine
 * similarity. The loss is the mean binary cross-entropy over the pairs. "Correct" counts pairs
 * whose score has the label's sign (score > 0 for positives).
 *
 * <p>Models trained before the scaled cosine carry no {@link #LOGIT_SCALE_KEY} in their identity
 * and are scored by the plain dot product of their raw embeddings, as they were trained.
 *
 * <p>Typed link models ({@code io.fanout.train.typed.TypedLinkTrainer}) score with the same scaled
 * cosine over the embeddings of their two endpoint types.
 */
public final class LinkStep {
  private LinkStep() {}

  /** Model dir identity key naming the task of a link-prediction model. */
  public static final String TASK = "task";

  /** Model dir identity key recording the logit scale a link model was trained with. */
  public static final String LOGIT_SCALE_KEY = "link_logit_scale";

  /**
   * The factor on the cosine of two normalised embeddings: logits in [-5, 5], so a pair's
   * probability spans sigmoid(-5) to sigmoid(5), 0.007 to 0.993.
   */
  public static final float LOGIT_SCALE = 5f;

  /** Marks "no normalisation, plain dot product": the scoring of models without the key. */
  static final float PLAIN_DOT = 0f;

  /** Pairs an {@link MlpDecoder} scores at once outside training (bounds its buffers). */
  static final int SCORE_CHUNK = 1 << 16;

  /**
   * Summed loss, pairs and correct pairs; writes the mean loss's gradient with respect to {@code
   * emb} into {@code dEmb} when it is not null. A {@code --decoder mlp} model scores its raw
   * embeddings with its {@link MlpDecoder}, whose parameter gradients are accumulated into the
   * model's gradient tensor (zeroed before); other link models use scaled-cosine scoring.
   *
   * @param emb {@code rows x dim} embeddings of the batch's seed nodes
   */
  static StepStats lossAndGrad(
      GnnModel model, float[] emb, int rows, int dim, LinkPairs p, float[] dEmb) {
    MlpDecoder mlp = model.decoder();
    if (mlp != null) {
      return mlpLossAndGrad(mlp, model.paramTensor(), model.gradTensor(), emb, rows, dim, p, dEmb);
    }
    return lossAndGrad(emb, rows, dim, p, dEmb);
  }

  /**
   * Summed loss, pairs and correct pairs of {@code mlp}'s scores (its parameters in {@code
   * params}); accumulates its parameter gradients into {@code grads} and writes the mean loss's
   * gradient with respect to {@code emb} into {@code dEmb} when it is not null.
   */
  public static StepStats mlpLossAndGrad(
      MlpDecoder mlp,
      FloatTensor params,
      FloatTensor grads,
      float[] emb,
      int rows,
      int dim,
      LinkPairs p,
      float[] dEmb) {
    int n = p.size();
    float[] scores = new float[n];
    mlp.scores(params, emb, p.src(), p.dst(), n, scores);
    double loss = 0;
    float[] dScore = new float[n];
    int correct = 0;
    for (int i = 0; i < n; i++) {
      double s = scores[i];
      loss += DotDecoder.loss(s, p.label()[i]);
      dScore[i] = (float) ((1 / (1 + Math.exp(-s)) - p.label()[i]) / n);
      correct += (scores[i] > 0) == (p.label()[i] == 1) ? 1 : 0;
    }
    if (dEmb != null) {
      Arrays.fill(dEmb, 0, rows * dim, 0f);
      mlp.backward(params, grads, emb, p.src(), p.dst(), dScore, dEmb);
    }
    return new StepStats(loss, n, correct);
  }

  /**
   * Summed loss, pairs and correct pairs of scaled-cosine scoring; writes the mean loss's gradient
   * with respect to {@code emb} into {@code dEmb} when it is not null.
   *
   * @param emb {@code rows x dim} embeddings of the batch's seed nodes
   */
  public static StepStats lossAndGrad(float[] emb, int rows, int dim, LinkPairs p, float[] dEmb) {
    int n = p.size();
    float[] z = new float[rows * dim];
    double[] norms = new double[rows];
    NormalizedEmbeddings.forward(emb, rows, dim, z, norms);
    float[] scores = new float[n];
    scores(z, dim, p.src(), p.dst(), n, LOGIT_SCALE, scores);
    // d(score)/dz_u = LOGIT_SCALE * z_v: the scale joins the mean's 1/n on the gradient.
    double loss =
        DotDecoder.lossAndGrad(
            z, rows, dim, p.src(), p.dst(), p.label(), scores, n == 0 ? 0f : LOGIT_SCALE / n, dEmb);
    if (dEmb != null) {
      NormalizedEmbeddings.backward(z, norms, rows, dim, dEmb, dEmb);
    }
    int correct = 0;
    for (int i = 0; i < n; i++) {
      correct += (scores[i] > 0) == (p.label()[i] == 1) ? 1 : 0;
    }
    return new StepStats(loss, n, correct);
  }

  /** The logit scale recorded in a link model's checkpoint metadata; {@link #PLAIN_DOT} if none. */
  static float logitScale(Map<String, String> checkpointMeta) {
    String v = checkpointMeta.get("identity." + LOGIT_SCALE_KEY);
    return v == null ? PLAIN_DOT : Float.parseFloat(v);
  }

  /**
   * The embeddings pairs are scored on: {@code emb} L2-normalised per row (a new array), or {@code
   * emb} itself for {@link #PLAIN_DOT}.
   */
  public static float[] scoringEmbeddings(float[] emb, int dim, float logitScale) {
    if (logitScale == PLAIN_DOT) {
      return emb;
    }
    int rows = emb.length / dim;
    float[] z = new float[emb.length];
    NormalizedEmbeddings.forward(emb, rows, dim, z, new double[rows]);
    return z;
  }

  /**
   * The embeddings {@code infer --embeddings} exports for link model {@code model} (checkpoint
   * {@code ck}) from its full-graph encoder outputs {@code emb}: the {@link #scoringEmbeddings}, so
   * a pair's score is {@link #LOGIT_SCALE} times the dot product of its two rows; a model with an
   * {@link MlpDecoder} scores the raw outputs, which it gets unchanged.
   */
  static float[] exportedEmbeddings(GnnModel model, Checkpoint ck, float[] emb, int dim) {
    return model.decoder() != null ? emb : scoringEmbeddings(emb, dim, logitScale(ck.meta()));
  }

  /**
   * {@code out[i] = scale * <z[src[i]], z[dst[i]]>} over {@link #scoringEmbeddings} {@code z}
   * (scale 1 for {@link #PLAIN_DOT}).
   */
  public static void scores(
      float[] z, int dim, int[] src, int[] dst, int n, float logitScale, float[] out) {
    DotDecoder.scores(z, dim, src, dst, n, out);
    if (logitScale != PLAIN_DOT) {
      for (int i = 0; i < n; i++) {
        out[i] *= logitScale;
      }
    }
  }

  /**
   * Scores {@code n} pairs of the full-graph embeddings {@code emb} (rows of width {@code dim}) as
   * the model was trained: its {@link MlpDecoder} on the raw embeddings, else {@link #scores} on
   * the {@link #scoringEmbeddings} of {@code logitScale}.
   */
  static void scores(
      GnnModel model,
      float logitScale,
      float[] emb,
      int dim,
      int[] src,
      int[] dst,
      int n,
      float[] out) {
    scoresOfRows(model, logitScale, scoredRows(model, logitScale, emb, dim), dim, src, dst, n, out);
  }

  /**
   * The rows {@link #scores(GnnModel, float, float[], int, int[], int[], int, float[])} scores
   * pairs on: the raw embeddings {@code emb} for an MLP decoder, else their {@link
   * #scoringEmbeddings}; made once for many {@link #scoresOfRows} calls.
   */
  static float[] scoredRows(GnnModel model, float logitScale, float[] emb, int dim) {
    return model.decoder() == null ? scoringEmbeddings(emb, dim, logitScale) : emb;
  }

  /** Scores {@code n} pairs of the {@link #scoredRows} {@code rows} as the model was trained. */
  static void scoresOfRows(
      GnnModel model,
      float logitScale,
      float[] rows,
      int dim,
      int[] src,
      int[] dst,
      int n,
      float[] out) {
    MlpDecoder mlp = model.decoder();
    if (mlp == null) {
      scores(rows, dim, src, dst, n, logitScale, out);
      return;
    }
    mlpScores(mlp, model.paramTensor(), rows, src, dst, n, out);
  }

  /**
   * {@code mlp}'s scores (parameters in {@code params}) of {@code n} pairs of the raw embeddings
   * {@code emb}, {@link #SCORE_CHUNK} pairs at a time.
   */
  public static void mlpScores(
      MlpDecoder mlp, FloatTensor params, float[] emb, int[] src, int[] dst, int n, float[] out) {
    float[] part = new float[Math.min(n, SCORE_CHUNK)];
    for (int from = 0; from < n; from += SCORE_CHUNK) {
      int to = Math.min(n, from + SCORE_CHUNK);
      int[] s = Arrays.copyOfRange(src, from, to);
      int[] d = Arrays.copyOfRange(dst, from, to);
      mlp.scores(params, emb, s, d, to - from, part);
      System.arraycopy(part, 0, out, from, to - from);
    }
  }
}
