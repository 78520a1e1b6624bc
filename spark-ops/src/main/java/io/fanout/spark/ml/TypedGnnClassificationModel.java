package io.fanout.spark.ml;

import static org.apache.spark.sql.functions.col;

import io.fanout.spark.InferResult;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A trained GNN node classifier of a typed graph, the {@link TypedGnnClassifier}'s model: {@link
 * #transform} appends {@code predictionCol} (double; a multi-label target's, fitted with {@code
 * labelsCol}: the predicted set, the classes whose probability is over 0.5, as an ascending array
 * of double), {@code probabilityCol} (ML Vector of the softmax; multi-label: of each class's
 * sigmoid) and, when {@code embeddingCol} is set, the node embeddings (ML Vector: the last hidden
 * layer), joined to the input by {@code idCol} as an id of the target type.
 *
 * <p>It scores the target type's vertices of the fitted graph (transductively): {@code
 * Fanout.get(spark).infer} (full-neighbor inference over every relation, on the driver) over the
 * model's typed store and checkpoint, into a folder of the model's own ({@code workDir/transform-*}
 * after a fit, a new folder under {@code spark.local.dir} or {@code java.io.tmpdir} after a load)
 * that the returned DataFrame reads and a second transform reuses. A row whose id the fitted graph
 * lacks gets nulls (a left join): typed graphs have no inductive scoring here.
 *
 * <p>{@code write().save(path)} saves the Params (Spark ML's metadata) with copies of the typed
 * store ({@code path/data/store}) and of the model directory ({@code path/data/model}); {@link
 * #load} reads them in place, and the loaded model gives bit-identical outputs. The path must be on
 * a local or mounted file system, since stores are memory-mapped.
 */
public final class TypedGnnClassificationModel extends GnnNodeModel<TypedGnnClassificationModel>
    implements TypedGnnParams {
  private static final long serialVersionUID = 1L;

  /**
   * A model over {@code store} and {@code modelDir}; its transform outputs go to a new folder under
   * {@code scratchParent}, or (null) under the local temp folder.
   */
  TypedGnnClassificationModel(String uid, Path store, Path modelDir, Path scratchParent) {
    super(
        uid,
        GnnParamSet.Kind.TYPED_CLASSIFIER,
        store,
        modelDir,
        scratchParent,
        "fanout-typed-gnn-transform-");
  }

  /**
   * Scores the target type's vertices of {@code vertices} by their {@code idCol}; see the class
   * comment. Runs inference now (or reuses its earlier output) and returns a lazy join.
   */
  @Override
  public Dataset<Row> transform(Dataset<?> vertices) {
    transformSchema(vertices.schema(), true);
    SparkSession spark = vertices.sparkSession();
    Dataset<Row> in = vertices.toDF();
    InferResult r = transductive(spark, embeds());
    return joined(in, r, prediction(r.predictions()), col("type").equalTo(getTargetType()));
  }

  /**
   * The prediction of {@code infer}'s output: the class as a double, or a multi-label target's set
   * ({@code predictions}) as an array of doubles, as Spark ML's multi-label evaluator reads it.
   *
   * @throws IllegalArgumentException when {@code labelsCol} disagrees with the checkpoint
   */
  private Column prediction(Dataset<Row> predictions) {
    String column = multiLabel() ? "predictions" : "prediction";
    if (!Arrays.asList(predictions.columns()).contains(column)) {
      throw new IllegalArgumentException(
          "TypedGnnClassificationModel param labelsCol is '"
              + getLabelsCol()
              + "', but its checkpoint was trained "
              + (multiLabel() ? "single-label" : "multi-label")
              + "; set labelsCol as the fit that trained it had it");
    }
    return col(column).cast(predictionType(this));
  }

  /** The type of {@code predictionCol}: double, or a multi-label target's array of double. */
  static DataType predictionType(TypedGnnParams p) {
    return p.multiLabel() ? DataTypes.createArrayType(DataTypes.DoubleType) : DataTypes.DoubleType;
  }

  /** {@code schema} with the output columns appended; see {@link #transform}. */
  static StructType outputSchema(StructType schema, TypedGnnParams p) {
    return GnnNodeModel.outputSchema(schema, p, predictionType(p));
  }

  /** Checks the id column and appends the output columns. */
  @Override
  public StructType transformSchema(StructType schema) {
    VertexColumns.checkId(schema, this);
    return outputSchema(schema, this);
  }

  @Override
  public TypedGnnClassificationModel copy(ParamMap extra) {
    return copied(
        new TypedGnnClassificationModel(uid(), storeDir(), modelDir(), scratchParent()), extra);
  }

  /** The reader of a model saved with {@code write().save(path)}. */
  public static MLReader<TypedGnnClassificationModel> read() {
    return new GnnModelReader<>(
        TypedGnnClassificationModel.class, TypedGnnClassificationModel::loaded);
  }

  /** Loads a model saved with {@code write().save(path)}. */
  public static TypedGnnClassificationModel load(String path) {
    return read().load(path);
  }

  /** A model over a loaded copy of the store and model directory. */
  static TypedGnnClassificationModel loaded(String uid, Path store, Path modelDir) {
    return new TypedGnnClassificationModel(uid, store, modelDir, null);
  }

  @Override
  String describe() {
    return ", targetType=" + getTargetType();
  }
}
