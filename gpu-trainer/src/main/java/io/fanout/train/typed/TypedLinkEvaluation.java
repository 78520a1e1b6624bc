package io.fanout.train.typed;

import io.fanout.graph.HeldOutEdges;
import io.fanout.graph.TypedGraph;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.sample.LinkPairs;
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
    return LinkMetrics.of(h, scores(model, g, task, h.src, h.dst, fanouts, batchSize, seed));
  }

  /**
   * AUC, AP, MRR and hits@K of the model on the pairs of pre-sampled link batches: epoch 0 of
   * {@code batches} ({@code train --val-shards} of {@code sample --task link --split val}), read
   * with their input rows as the training batches are. Each batch runs without dropout under its
   * own key, as {@link #embed}'s; its pairs are scored on its seeds' output rows as {@link #scores}
   * scores them, and the metrics are {@link #metrics(TypedModel, TypedGraph, TypedLinkTask,
   * HeldOutEdges, int[][], int, long)}'s over every batch's pairs, a pair's source by its
   * type-local id. With full neighborhoods the batches give the scores {@code evaluate} gives.
   */
  public static LinkMetrics metrics(
      TypedModel model, TypedGraph g, TypedLinkTask task, TypedEpochs batches, long seed) {
    PairScores all = new PairScores();
    TypedBatchStream.forEach(
        batches,
        0,
        b -> TypedFeatures.gather(g, model, b),
        () -> false,
        in -> all.add(model, task, in.batch(), in.features(), seed));
    return all.metrics();
  }

  /** Every scored pair so far: its source's type-local id, its score and label. */
  private static final class PairScores {
    private int[] src = new int[1024];
    private float[] score = new float[1024];
    private int[] label = new int[1024];
    private int n;

    /** Scores the pairs of batch {@code b} with input rows {@code x}. */
    void add(TypedModel model, TypedLinkTask task, TypedMiniBatch b, float[][] x, long seed) {
      int dim = model.config().classes();
      model.forwardAll(b, x, false, Trainer.batchKey(seed, 0, b.batch()));
      float[] emb =
          task.joined(
              model.levelRows(0, task.srcType()),
              task.oneType() ? null : model.levelRows(0, task.dstType()));
      LinkPairs p = task.joinedPairs(b);
      int pairs = p.src().length;
      float[] out = new float[pairs];
      if (model.decoder() != null) {
        LinkStep.mlpScores(model.decoder(), model.paramTensor(), emb, p.src(), p.dst(), pairs, out);
      } else {
        float[] z = LinkStep.scoringEmbeddings(emb, dim, LinkStep.LOGIT_SCALE);
        LinkStep.scores(z, dim, p.src(), p.dst(), pairs, LinkStep.LOGIT_SCALE, out);
      }
      if (n + pairs > src.length) {
        int cap = Math.max(n + pairs, 2 * src.length);
        src = Arrays.copyOf(src, cap);
        score = Arrays.copyOf(score, cap);
        label = Arrays.copyOf(label, cap);
      }
      int[] srcNodes = b.nodes(task.srcType());
      for (int i = 0; i < pairs; i++) {
        src[n] = srcNodes[b.pairs().src()[i]];
        score[n] = out[i];
        label[n] = b.pairs().label()[i];
        n++;
      }
    }

    LinkMetrics metrics() {
      return LinkMetrics.ofLabelled(n, src, score, i -> label[i] == 1);
    }
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
