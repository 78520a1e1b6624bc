package io.fanout.spark.train;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.options.EvaluateOptions;
import io.fanout.conf.options.InferenceMode;
import io.fanout.conf.options.TrainCommandOptions;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.nn.EmbeddingTable;
import io.fanout.train.ModelInference;
import io.fanout.train.typed.TypedModelEvaluation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * {@code infer} of a typed model: Parquet predictions of every vertex of its target type ({@code
 * type}, {@code id} (the original id), {@code dense_id} (type-local), {@code prediction} (the most
 * probable class; multi-label: {@code predictions}, the classes over 0.5) and {@code
 * probabilities}) and embeddings ({@code type}, {@code id}, {@code dense_id}, {@code embedding}):
 * the target type's last hidden layer, then every learned embedding table's rows under their own
 * type.
 */
public final class TypedInference {
  private TypedInference() {}

  /**
   * The candidate pairs of {@code infer --task link --pairs TABLE} on typed store {@code graph}:
   * sources are original ids of the model's link relation's source type, destinations of its
   * destination type.
   */
  public static io.fanout.train.CandidatePairChunks readPairs(
      SparkSession spark, FanoutConf c, Path graph, String table) {
    try (io.fanout.graph.TypedGraphStore g = io.fanout.graph.TypedGraphStore.open(graph, false)) {
      io.fanout.train.typed.TypedLinkTask task =
          TypedModelEvaluation.linkTask(
              Path.of(c.get(TrainCommandOptions.MODEL_DIR)),
              c.get(EvaluateOptions.CHECKPOINT),
              g.schema());
      if (task == null) {
        throw new io.fanout.store.InvalidInputException(
            "the model in "
                + c.get(TrainCommandOptions.MODEL_DIR)
                + " is a node classifier; scoring pairs needs a model trained on sample --task"
                + " link shards");
      }
      return io.fanout.spark.train.CandidatePairsReader.readTyped(
          spark,
          g,
          task.srcType(),
          task.dstType(),
          table,
          c.get(io.fanout.conf.options.InferOptions.PAIRS_FORMAT).id(),
          c.get(io.fanout.conf.options.InferOptions.SRC_COLUMN),
          c.get(io.fanout.conf.options.InferOptions.DST_COLUMN));
    }
  }

  public static ModelInference.Outcome run(SparkSession spark, FanoutConf c, Path pred, Path emb) {
    String fanouts = null;
    if (c.get(EvaluateOptions.NEIGHBORS) == InferenceMode.SAMPLED) {
      fanouts = c.get(EvaluateOptions.FANOUTS);
    }
    Path graphPath = Path.of(c.get(TrainCommandOptions.GRAPH));
    TypedGraph g = TypedTrainJob.opener(spark).open(graphPath, c.get(SharedOptions.VERIFY));
    try {
      Path modelDir = Path.of(c.get(TrainCommandOptions.MODEL_DIR));
      if (TypedModelEvaluation.linkTask(modelDir, c.get(EvaluateOptions.CHECKPOINT), g.schema())
          != null) {
        return linkEmbeddings(spark, c, g, modelDir, fanouts, pred, emb);
      }
      TypedModelEvaluation.Outputs o =
          TypedModelEvaluation.infer(
              g,
              Path.of(c.get(TrainCommandOptions.MODEL_DIR)),
              c.get(EvaluateOptions.CHECKPOINT),
              fanouts,
              c.get(EvaluateOptions.BATCH_SIZE),
              c.get(EvaluateOptions.SEED));
      int target = o.config().target();
      String targetName = o.config().type(target).name();
      int classes = o.config().classes();
      int n = o.scores().length / classes;
      if (pred != null) {
        List<Row> rows = new ArrayList<>(n);
        for (int v = 0; v < n; v++) {
          float[] p = java.util.Arrays.copyOfRange(o.scores(), v * classes, (v + 1) * classes);
          Object prediction;
          if (o.config().multiLabel()) {
            List<Integer> set = new ArrayList<>();
            for (int k = 0; k < classes; k++) {
              if (p[k] > 0.5f) {
                set.add(k);
              }
            }
            prediction = set;
          } else {
            int best = 0;
            for (int k = 1; k < classes; k++) {
              best = p[k] > p[best] ? k : best;
            }
            prediction = best;
          }
          rows.add(RowFactory.create(targetName, v, prediction, boxed(p)));
        }
        StructType schema =
            new StructType()
                .add("type", DataTypes.StringType, false)
                .add("dense_id", DataTypes.IntegerType, false)
                .add(
                    o.config().multiLabel() ? "predictions" : "prediction",
                    o.config().multiLabel()
                        ? DataTypes.createArrayType(DataTypes.IntegerType, false)
                        : DataTypes.IntegerType,
                    false)
                .add("probabilities", DataTypes.createArrayType(DataTypes.FloatType, false), false);
        write(withIds(spark, g, target, spark.createDataFrame(rows, schema)), pred);
      }
      int dim = o.embeddings().length / Math.max(1, n);
      if (emb != null) {
        StructType schema =
            new StructType()
                .add("type", DataTypes.StringType, false)
                .add("dense_id", DataTypes.IntegerType, false)
                .add("embedding", DataTypes.createArrayType(DataTypes.FloatType, false), false);
        List<Dataset<Row>> parts = new ArrayList<>();
        if (dim > 0) {
          List<Row> rows = new ArrayList<>(n);
          for (int v = 0; v < n; v++) {
            rows.add(
                RowFactory.create(
                    targetName,
                    v,
                    boxed(java.util.Arrays.copyOfRange(o.embeddings(), v * dim, (v + 1) * dim))));
          }
          parts.add(withIds(spark, g, target, spark.createDataFrame(rows, schema)));
        }
        for (int t = 0; t < o.tables().length; t++) {
          EmbeddingTable table = o.tables()[t];
          if (table == null) {
            continue;
          }
          int rowsOf = Math.toIntExact(table.rows());
          int[] ids = new int[rowsOf];
          java.util.Arrays.setAll(ids, i -> i);
          float[] x = new float[Math.multiplyExact(rowsOf, table.dim())];
          table.gather(ids, 0, rowsOf, x, 0);
          List<Row> rows = new ArrayList<>(rowsOf);
          for (int v = 0; v < rowsOf; v++) {
            rows.add(
                RowFactory.create(
                    o.config().type(t).name(),
                    v,
                    boxed(
                        java.util.Arrays.copyOfRange(x, v * table.dim(), (v + 1) * table.dim()))));
          }
          parts.add(withIds(spark, g, t, spark.createDataFrame(rows, schema)));
        }
        if (parts.isEmpty()) {
          throw new io.fanout.store.InvalidInputException(
              "infer --embeddings: the typed model has one layer and no learned embedding table,"
                  + " so it has no embeddings to write");
        }
        write(union(parts), emb);
      }
      return new ModelInference.Outcome(n, classes, dim, false, false);
    } finally {
      g.close();
    }
  }

  /**
   * {@code infer --embeddings} of a typed link model: the embeddings its pairs are scored on, of
   * every vertex of its relation's source and destination types, under their own type; it has no
   * predictions ({@code --output} is refused: pairs are scored by {@code --task link --pairs}).
   */
  private static ModelInference.Outcome linkEmbeddings(
      SparkSession spark,
      FanoutConf c,
      TypedGraph g,
      Path modelDir,
      String fanouts,
      Path pred,
      Path emb) {
    if (pred != null) {
      throw new io.fanout.conf.FanoutConfigException(
          "the typed model in "
              + modelDir
              + " predicts links: score candidate pairs with infer --task link --pairs TABLE"
              + " --output DIR, or export embeddings with --embeddings DIR alone");
    }
    java.util.Map<Integer, float[]> byType =
        TypedModelEvaluation.linkEmbeddings(
            g,
            modelDir,
            c.get(EvaluateOptions.CHECKPOINT),
            fanouts,
            c.get(EvaluateOptions.BATCH_SIZE),
            c.get(EvaluateOptions.SEED));
    StructType schema =
        new StructType()
            .add("type", DataTypes.StringType, false)
            .add("dense_id", DataTypes.IntegerType, false)
            .add("embedding", DataTypes.createArrayType(DataTypes.FloatType, false), false);
    List<Dataset<Row>> parts = new ArrayList<>();
    int dim = 0;
    long n = 0;
    for (java.util.Map.Entry<Integer, float[]> e : byType.entrySet()) {
      int t = e.getKey();
      float[] x = e.getValue();
      int count = Math.toIntExact(g.schema().type(t).count());
      dim = count == 0 ? dim : x.length / count;
      List<Row> rows = new ArrayList<>(count);
      for (int v = 0; v < count; v++) {
        rows.add(
            RowFactory.create(
                g.schema().type(t).name(),
                v,
                boxed(java.util.Arrays.copyOfRange(x, v * dim, (v + 1) * dim))));
      }
      n += count;
      parts.add(withIds(spark, g, t, spark.createDataFrame(rows, schema)));
    }
    write(union(parts), emb);
    return new ModelInference.Outcome(n, 0, dim, false, false);
  }

  /**
   * The rows of every part; when the types' original ids differ in type (a long here, a string
   * there) every {@code id} becomes a string.
   */
  private static Dataset<Row> union(List<Dataset<Row>> parts) {
    boolean same = true;
    for (Dataset<Row> d : parts) {
      same &=
          d.schema().apply("id").dataType().equals(parts.get(0).schema().apply("id").dataType());
    }
    Dataset<Row> all = null;
    for (Dataset<Row> d : parts) {
      Dataset<Row> p =
          same ? d : d.withColumn("id", functions.col("id").cast(DataTypes.StringType));
      all = all == null ? p : all.unionByName(p);
    }
    return all;
  }

  private static Float[] boxed(float[] a) {
    Float[] b = new Float[a.length];
    for (int i = 0; i < a.length; i++) {
      b[i] = a[i];
    }
    return b;
  }

  /**
   * Adds the original ids ({@code id}) of type {@code t}'s {@code dense_id}s from the store's id
   * map; a graph that is not a typed store (an in-memory one) keeps its dense ids as ids.
   */
  private static Dataset<Row> withIds(SparkSession spark, TypedGraph g, int t, Dataset<Row> d) {
    Dataset<Row> withId;
    if (g instanceof TypedGraphStore s) {
      Dataset<Row> map = spark.read().parquet(s.idMap(t).toString()).select("dense_id", "id");
      withId = d.join(map, "dense_id");
    } else {
      withId = d.withColumn("id", functions.col("dense_id").cast(DataTypes.LongType));
    }
    List<String> cols = new ArrayList<>(List.of("type", "id", "dense_id"));
    for (String f : d.columns()) {
      if (!cols.contains(f)) {
        cols.add(f);
      }
    }
    return withId
        .select(cols.stream().map(functions::col).toArray(org.apache.spark.sql.Column[]::new))
        .orderBy("dense_id");
  }

  private static void write(Dataset<Row> d, Path out) {
    d.coalesce(1).write().mode("overwrite").parquet(out.toString());
  }
}
