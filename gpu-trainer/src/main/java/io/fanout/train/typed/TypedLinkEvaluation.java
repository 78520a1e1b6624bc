package io.fanout.train.typed;

import io.fanout.graph.HeldOutEdges;
import io.fanout.graph.TypedGraph;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.sample.TypedNeighborSampler;
import io.fanout.train.LinkMetrics;
import io.fanout.train.LinkStep;
import io.fanout.train.Trainer;
import java.util.Arrays;

/**
 * Scores pairs of a typed link model ({@link TypedLinkTask}) without dropout: the embeddings of the
 * pairs' endpoints come from batches whose seeds are one type's vertices, sampled with the given
 * fanouts ({@code -1} everywhere: full neighborhoods), in sorted id order (epoch 0, batch indices
 * from 0), so the scores depend only on the model, the graph and the pairs.
 */
public final class TypedLinkEvaluation {
  private TypedLinkEvaluation() {}

  /**
   * The output rows ({@code ids.length x classes}, in {@code ids}' order) of type {@code type}'s
   * vertices {@code ids}.
   */
  public static float[] embed(
      TypedModel model,
      TypedGraph g,
      int type,
      int[] ids,
      int[][] fanouts,
      int batchSize,
      long seed) {
    TypedModelConfig cfg = model.config();
    int dim = cfg.classes();
    float[] out = new float[Math.multiplyExact(ids.length, dim)];
    TypedNeighborSampler.Worker w = new TypedNeighborSampler(g, type, fanouts, seed).newWorker();
    for (int at = 0, batch = 0; at < ids.length; at += batchSize, batch++) {
      int n = Math.min(batchSize, ids.length - at);
      TypedMiniBatch b = w.sample(0, batch, ids, at, n);
      model.forwardAll(
          b, TypedFeatures.gather(g, model, b), false, Trainer.batchKey(seed, 0, batch));
      float[] rows = model.levelRows(0, type);
      System.arraycopy(rows, 0, out, at * dim, n * dim);
    }
    return out;
  }

  /**
   * The scores of {@code n} pairs {@code (src[i] of S, dst[i] of D)}, type-local ids, as the model
   * was trained to score them.
   */
  public static float[] scores(
      TypedModel model,
      TypedGraph g,
      TypedLinkTask task,
      int[] src,
      int[] dst,
      int[][] fanouts,
      int batchSize,
      long seed) {
    int dim = model.config().classes();
    int[] ps;
    int[] pd;
    float[] emb;
    if (task.oneType()) {
      int[] all = distinct(concat(src, dst));
      emb = embed(model, g, task.srcType(), all, fanouts, batchSize, seed);
      ps = positions(all, src, 0);
      pd = positions(all, dst, 0);
    } else {
      int[] us = distinct(src);
      int[] vs = distinct(dst);
      emb =
          task.joined(
              embed(model, g, task.srcType(), us, fanouts, batchSize, seed),
              embed(model, g, task.dstType(), vs, fanouts, batchSize, seed));
      ps = positions(us, src, 0);
      pd = positions(vs, dst, us.length);
    }
    float[] out = new float[src.length];
    if (model.decoder() != null) {
      LinkStep.mlpScores(model.decoder(), model.paramTensor(), emb, ps, pd, src.length, out);
      return out;
    }
    float[] z = LinkStep.scoringEmbeddings(emb, dim, LinkStep.LOGIT_SCALE);
    LinkStep.scores(z, dim, ps, pd, src.length, LinkStep.LOGIT_SCALE, out);
    return out;
  }

  /** AUC, AP, MRR and hits@K of the model on held-out edges {@code h}. */
  public static LinkMetrics metrics(
      TypedModel model,
      TypedGraph g,
      TypedLinkTask task,
      HeldOutEdges h,
      int[][] fanouts,
      int batchSize,
      long seed) {
    float[] s = scores(model, g, task, h.src, h.dst, fanouts, batchSize, seed);
    int np = h.positives();
    int[] posSrc = new int[np];
    float[] pos = new float[np];
    int[] negSrc = new int[h.size() - np];
    float[] neg = new float[h.size() - np];
    int a = 0;
    int b = 0;
    for (int i = 0; i < h.size(); i++) {
      if (h.label[i] == 1) {
        posSrc[a] = h.src[i];
        pos[a++] = s[i];
      } else {
        negSrc[b] = h.src[i];
        neg[b++] = s[i];
      }
    }
    return LinkMetrics.of(posSrc, pos, negSrc, neg);
  }

  /** {@code off} plus the position of each of {@code ids} in the sorted {@code sorted}. */
  private static int[] positions(int[] sorted, int[] ids, int off) {
    int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = off + Arrays.binarySearch(sorted, ids[i]);
    }
    return out;
  }

  /** The distinct values of {@code a}, ascending. */
  static int[] distinct(int[] a) {
    return Arrays.stream(a).distinct().sorted().toArray();
  }

  private static int[] concat(int[] a, int[] b) {
    int[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
