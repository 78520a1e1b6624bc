package io.fanout.spark.ml;

import static org.apache.spark.ml.functions.array_to_vector;
import static org.apache.spark.sql.functions.col;

import io.fanout.conf.options.InferOptions;
import io.fanout.spark.Fanout;
import io.fanout.spark.InferAction;
import io.fanout.spark.InferResult;
import java.nio.file.Path;
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;

/**
 * What the node classification models share beyond {@link GnnModel}: the setters of the id and
 * output columns, the transductive {@code infer} over the fitted store, the join of its outputs to
 * the input by {@code idCol}, and the output schema.
 *
 * @param <M> the model class
 */
abstract class GnnNodeModel<M extends GnnNodeModel<M>> extends GnnModel<M>
    implements GnnNodeParams {
  private static final long serialVersionUID = 1L;

  /** The infer outputs' id column, renamed for the join so that no input column clashes. */
  static final String KEY = "__fanout_id";

  private static final String EMBEDDING_KEY = "__fanout_eid";

  GnnNodeModel(
      String uid,
      GnnParamSet.Kind kind,
      Path store,
      Path modelDir,
      Path scratchParent,
      String freshPrefix) {
    super(uid, kind, store, modelDir, scratchParent, freshPrefix);
  }

  @SuppressWarnings("unchecked")
  private M self() {
    return (M) this;
  }

  public M setIdCol(String v) {
    set(idCol(), v);
    return self();
  }

  public M setPredictionCol(String v) {
    set(predictionCol(), v);
    return self();
  }

  public M setProbabilityCol(String v) {
    set(probabilityCol(), v);
    return self();
  }

  /** The column of the node embeddings; empty (the default) for none. */
  public M setEmbeddingCol(String v) {
    set(embeddingCol(), v);
    return self();
  }

  /** Whether transform appends the embeddings ({@code embeddingCol} set). */
  boolean embeds() {
    return !getEmbeddingCol().isBlank();
  }

  /**
   * Infers over the fitted store into the model's folder (replacing an earlier output of it), with
   * the embeddings when {@code embed}.
   */
  InferResult transductive(SparkSession spark, boolean embed) {
    Path out = scratch(spark);
    InferAction infer =
        Fanout.get(spark)
            .infer(storeDir().toString(), modelDir().toString())
            .output(out.resolve("predictions").toString())
            .option(InferOptions.OVERWRITE.name(), "true");
    if (embed) {
      infer.embeddings(out.resolve("embeddings").toString());
    }
    return infer.execute();
  }

  /**
   * {@code in} left-joined by {@code idCol} to the rows of {@code r} that {@code rows} keeps: their
   * prediction ({@code prediction}, as {@code predictionCol}), probabilities (as an ML Vector in
   * {@code probabilityCol}) and, when {@link #embeds}, embeddings ({@code embeddingCol}).
   */
  Dataset<Row> joined(Dataset<Row> in, InferResult r, Column prediction, Column rows) {
    Dataset<Row> scores =
        r.predictions()
            .filter(rows)
            .select(
                col("id").as(KEY),
                prediction.as(getPredictionCol()),
                array_to_vector(col("probabilities")).as(getProbabilityCol()));
    if (embeds()) {
      Dataset<Row> e =
          r.embeddings()
              .filter(rows)
              .select(
                  col("id").as(EMBEDDING_KEY),
                  array_to_vector(col("embedding")).as(getEmbeddingCol()));
      scores =
          scores.join(e, scores.col(KEY).equalTo(e.col(EMBEDDING_KEY)), "left").drop(EMBEDDING_KEY);
    }
    return in.join(scores, in.col(VertexColumns.quote(getIdCol())).equalTo(scores.col(KEY)), "left")
        .drop(KEY);
  }

  /**
   * {@code schema} with the output columns appended, the prediction of type {@code prediction}
   * (double; a multi-label target's set: array of double), refused when the input has one.
   */
  static StructType outputSchema(StructType schema, GnnNodeParams p, DataType prediction) {
    String who = p.getClass().getSimpleName();
    StructType s =
        VertexColumns.append(schema, who, "predictionCol", p.getPredictionCol(), prediction);
    s =
        VertexColumns.append(
            s, who, "probabilityCol", p.getProbabilityCol(), SQLDataTypes.VectorType());
    if (!p.getEmbeddingCol().isBlank()) {
      s =
          VertexColumns.append(
              s, who, "embeddingCol", p.getEmbeddingCol(), SQLDataTypes.VectorType());
    }
    return s;
  }
}
