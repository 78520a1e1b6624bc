package io.fanout.train.typed;

import io.fanout.graph.HeldOutEdges;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.TypedSchema;
import io.fanout.nn.EmbeddingTable;
import io.fanout.nn.typed.TypedModel;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.sample.TypedFanouts;
import io.fanout.sample.TypedNeighborSampler;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.tensor.Backend;
import io.fanout.tensor.Backends;
import io.fanout.train.Checkpoint;
import io.fanout.train.CheckpointPick;
import io.fanout.train.LinkMetrics;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code evaluate} and {@code infer} of a typed model dir: the checkpoint's model over the typed
 * graph's target type, with full neighborhoods (every in-neighbor over every relation) or sampled
 * ones ({@code --fanouts} in the typed syntax, e.g. {@code paper_term=10,5;*=20,20}).
 */
public final class TypedModelEvaluation {
  private TypedModelEvaluation() {}

  /** Whether the model dir's {@code pick} checkpoint is a typed model's. */
  public static boolean isTyped(Path modelDir, CheckpointPick pick) {
    Path f = Checkpoint.inferenceFile(modelDir, pick);
    return TypedCheckpoint.isTyped(Checkpoint.read(modelDir, f.getFileName().toString()).meta());
  }

  /** The model of {@code pick} loaded onto {@code be}, checked against {@code g}'s schema. */
  public static TypedModel load(Path modelDir, CheckpointPick pick, TypedGraph g, Backend be) {
    String name = Checkpoint.inferenceFile(modelDir, pick).getFileName().toString();
    TypedCheckpoint.Loaded l = TypedCheckpoint.read(modelDir, name);
    check(l.config(), g.schema(), modelDir);
    TypedLinkTask link = TypedLinkTask.of(g.schema(), l.checkpoint().meta());
    TypedModel m =
        new TypedModel(
            l.config(), be, link == null ? io.fanout.nn.DecoderKind.DOT : link.decoder());
    try {
      TypedCheckpoint.restore(modelDir, l, m, null);
    } catch (RuntimeException e) {
      m.close();
      throw e;
    }
    return m;
  }

  static void check(TypedModelConfig cfg, TypedSchema s, Path modelDir) {
    boolean same = cfg.numTypes() == s.numTypes() && cfg.numRelations() == s.numRelations();
    for (int t = 0; same && t < s.numTypes(); t++) {
      TypedModelConfig.TypeInput ti = cfg.type(t);
      TypedSchema.VertexType vt = s.type(t);
      same =
          ti.name().equals(vt.name())
              && (ti.embedded() ? ti.count() == vt.count() : ti.featureDim() == vt.featureDim());
    }
    for (int r = 0; same && r < s.numRelations(); r++) {
      same =
          cfg.relation(r).name().equals(s.relation(r).name())
              && cfg.relation(r).src() == s.relation(r).srcType()
              && cfg.relation(r).dst() == s.relation(r).dstType();
    }
    if (!same) {
      throw new InvalidInputException(
          "the typed model in "
              + modelDir
              + " was trained on other types or relations ("
              + cfg.toMap().get("types")
              + "; "
              + cfg.toMap().get("relations")
              + ") than the graph's");
    }
  }

  /**
   * The fanouts of {@code text} per relation and layer; blank: every in-neighbor ({@code -1}).
   *
   * @throws InvalidInputException naming the mistake
   */
  public static int[][] fanouts(String text, TypedSchema s, int layers) {
    int[][] f;
    if (text == null || text.isBlank()) {
      f = new int[s.numRelations()][layers];
      for (int[] row : f) {
        java.util.Arrays.fill(row, -1);
      }
      return f;
    }
    try {
      f = TypedFanouts.parse(text, s);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException("--fanouts '" + text + "': " + e.getMessage());
    }
    if (f.length > 0 && f[0].length != layers) {
      throw new InvalidInputException(
          "--fanouts '" + text + "' gives " + f[0].length + " hops; the model has " + layers);
    }
    return f;
  }

  /** Accuracy, Micro- and Macro-F1 on the target type's train, val and test splits. */
  public static Map<String, F1Scores> evaluate(
      TypedGraph g, Path modelDir, CheckpointPick pick, String fanouts, int batchSize, long seed) {
    try (Backend be = Backends.select();
        TypedModel m = load(modelDir, pick, g, be)) {
      TypedModelConfig cfg = m.config();
      TypedSampler sampler =
          TypedSampler.of(
              new TypedNeighborSampler(
                  g, cfg.target(), fanouts(fanouts, g.schema(), cfg.layers()), seed));
      Map<String, F1Scores> out = new LinkedHashMap<>();
      for (byte split :
          new byte[] {StoreLayout.SPLIT_TRAIN, StoreLayout.SPLIT_VAL, StoreLayout.SPLIT_TEST}) {
        int[] seeds = TypedEvaluation.seeds(g, cfg.target(), split);
        out.put(
            StoreLayout.splitName(split),
            TypedEvaluation.scores(m, g, sampler, seeds, batchSize, seed));
      }
      return out;
    }
  }

  /** The link task of the model dir's {@code pick} checkpoint, or null for a node classifier. */
  public static TypedLinkTask linkTask(Path modelDir, CheckpointPick pick, TypedSchema s) {
    return TypedLinkTask.of(s, Checkpoint.readForInference(modelDir, pick).meta());
  }

  /**
   * A link model's AUC, AP, MRR and hits@K on the store's held-out val and test edges of its
   * relation, with full neighborhoods.
   */
  public static Map<String, LinkMetrics> linkMetrics(
      TypedGraphStore g, Path modelDir, CheckpointPick pick, int batchSize, long seed) {
    TypedLinkTask task = linkTask(modelDir, pick, g.schema());
    if (task == null) {
      throw new InvalidInputException(modelDir + " holds a node classifier, not a link model");
    }
    HeldOutEdges.requireEdgeSplit(g.root(), g.manifest(), "evaluate of a link model");
    if (!task.relationName().equals(g.manifest().edgeSplit.relation)) {
      throw new InvalidInputException(
          "the link model in "
              + modelDir
              + " predicts relation '"
              + task.relationName()
              + "', the store's held-out edges are of '"
              + g.manifest().edgeSplit.relation
              + "'");
    }
    try (Backend be = Backends.select();
        TypedModel m = load(modelDir, pick, g, be)) {
      int[][] full = fanouts(null, g.schema(), m.config().layers());
      Map<String, LinkMetrics> out = new LinkedHashMap<>();
      for (String split : StoreLayout.HELD_OUT_SPLITS) {
        out.put(
            split,
            TypedLinkEvaluation.metrics(
                m, g, task, HeldOutEdges.read(g, split), full, batchSize, seed));
      }
      return out;
    }
  }

  /**
   * A link model's scores of pairs {@code (src[i] of its relation's source type, dst[i] of its
   * destination type)}, type-local ids, with full neighborhoods or {@code fanouts}.
   */
  public static float[] linkScores(
      TypedGraph g,
      Path modelDir,
      CheckpointPick pick,
      int[] src,
      int[] dst,
      String fanouts,
      int batchSize,
      long seed) {
    TypedLinkTask task = linkTask(modelDir, pick, g.schema());
    if (task == null) {
      throw new InvalidInputException(
          modelDir + " holds a node classifier; infer --task link scores pairs of a link model");
    }
    try (Backend be = Backends.select();
        TypedModel m = load(modelDir, pick, g, be)) {
      int[][] f = fanouts(fanouts, g.schema(), m.config().layers());
      return TypedLinkEvaluation.scores(m, g, task, src, dst, f, batchSize, seed);
    }
  }

  /**
   * A link model's embeddings of every vertex of its relation's source type, then of its
   * destination type (once when they are one), by type-local id: the L2-normalised output rows its
   * pairs are scored on ({@code LOGIT_SCALE} times the dot product of two rows), keyed by type.
   */
  public static Map<Integer, float[]> linkEmbeddings(
      TypedGraph g, Path modelDir, CheckpointPick pick, String fanouts, int batchSize, long seed) {
    TypedLinkTask task = linkTask(modelDir, pick, g.schema());
    if (task == null) {
      throw new InvalidInputException(modelDir + " holds a node classifier, not a link model");
    }
    try (Backend be = Backends.select();
        TypedModel m = load(modelDir, pick, g, be)) {
      int[][] f = fanouts(fanouts, g.schema(), m.config().layers());
      Map<Integer, float[]> out = new LinkedHashMap<>();
      for (int t : new int[] {task.srcType(), task.dstType()}) {
        int n = Math.toIntExact(g.schema().type(t).count());
        int[] all = new int[n];
        java.util.Arrays.setAll(all, i -> i);
        float[] emb = TypedLinkEvaluation.embed(m, g, t, all, f, batchSize, seed);
        out.put(
            t,
            m.decoder() != null
                ? emb
                : io.fanout.train.LinkStep.scoringEmbeddings(
                    emb, m.config().classes(), io.fanout.train.LinkStep.LOGIT_SCALE));
      }
      return out;
    }
  }

  /**
   * What {@link #infer} computed for every vertex of the target type, by type-local id.
   *
   * @param scores {@code count x classes}: softmax probabilities, or per-class sigmoids
   * @param embeddings {@code count x hidden}: the last hidden layer (the output layer's input)
   * @param tables the learned embedding tables by type (null where a type reads features)
   */
  public record Outputs(
      TypedModelConfig config, float[] scores, float[] embeddings, EmbeddingTable[] tables) {}

  /** Runs the model over every vertex of the target type. */
  public static Outputs infer(
      TypedGraph g, Path modelDir, CheckpointPick pick, String fanouts, int batchSize, long seed) {
    try (Backend be = Backends.select();
        TypedModel m = load(modelDir, pick, g, be)) {
      TypedModelConfig cfg = m.config();
      int n = Math.toIntExact(g.schema().type(cfg.target()).count());
      int classes = cfg.classes();
      int hidden = cfg.layers() > 1 ? cfg.layerOut(cfg.layers() - 2) : 0;
      float[] scores = new float[Math.multiplyExact(n, classes)];
      float[] emb = new float[Math.multiplyExact(n, hidden)];
      int[] all = new int[n];
      java.util.Arrays.setAll(all, i -> i);
      TypedSampler sampler =
          TypedSampler.of(
              new TypedNeighborSampler(
                  g, cfg.target(), fanouts(fanouts, g.schema(), cfg.layers()), seed));
      TypedEvaluation.run(
          m,
          g,
          sampler,
          all,
          batchSize,
          seed,
          o -> {
            int[] s = o.seeds();
            float[] lg = o.logits();
            for (int i = 0; i < s.length; i++) {
              int base = s[i] * classes;
              if (cfg.multiLabel()) {
                for (int c = 0; c < classes; c++) {
                  scores[base + c] = (float) (1.0 / (1.0 + Math.exp(-lg[i * classes + c])));
                }
              } else {
                float max = Float.NEGATIVE_INFINITY;
                for (int c = 0; c < classes; c++) {
                  max = Math.max(max, lg[i * classes + c]);
                }
                double sum = 0;
                for (int c = 0; c < classes; c++) {
                  sum += Math.exp(lg[i * classes + c] - max);
                }
                for (int c = 0; c < classes; c++) {
                  scores[base + c] = (float) (Math.exp(lg[i * classes + c] - max) / sum);
                }
              }
            }
            if (hidden > 0) {
              float[] h = m.levelRows(1, cfg.target());
              for (int i = 0; i < s.length; i++) {
                System.arraycopy(h, i * hidden, emb, s[i] * hidden, hidden);
              }
            }
          });
      EmbeddingTable[] tables = new EmbeddingTable[cfg.numTypes()];
      for (int t = 0; t < tables.length; t++) {
        tables[t] = m.embeddings(t);
      }
      return new Outputs(cfg, scores, emb, tables);
    }
  }
}
