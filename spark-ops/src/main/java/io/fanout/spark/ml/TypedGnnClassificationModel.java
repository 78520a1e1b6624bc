package io.fanout.spark.ml;

import static org.apache.spark.ml.functions.array_to_vector;
import static org.apache.spark.sql.functions.col;

import io.fanout.conf.options.InferOptions;
import io.fanout.spark.Fanout;
import io.fanout.spark.InferAction;
import io.fanout.spark.InferResult;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.spark.ml.Model;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.ml.util.MLWriter;
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
public final class TypedGnnClassificationModel extends Model<TypedGnnClassificationModel>
    implements TypedGnnParams, MLWritable {
  private static final long serialVersionUID = 1L;

  private final String uid;
  private final GnnParamSet params;
  private final String store;
  private final String modelDir;
  private final String scratchParent;
  private String scratch;

  /**
   * A model over {@code store} and {@code modelDir}; its transform outputs go to a new folder under
   * {@code scratchParent}, or (null) under the local temp folder.
   */
  TypedGnnClassificationModel(String uid, Path store, Path modelDir, Path scratchParent) {
    this.uid = uid;
    this.params = new GnnParamSet(this, GnnParamSet.Kind.TYPED_CLASSIFIER);
    params.setDefaults(this);
    this.store = store.toString();
    this.modelDir = modelDir.toString();
    this.scratchParent = scratchParent == null ? null : scratchParent.toString();
  }

  @Override
  public String uid() {
    return uid;
  }

  @Override
  public GnnParamSet gnnParams() {
    return params;
  }

  /** The typed graph store this model scores. */
  public Path storeDir() {
    return Path.of(store);
  }

  /** The model directory (checkpoint and {@code metrics.jsonl}). */
  public Path modelDir() {
    return Path.of(modelDir);
  }

  public TypedGnnClassificationModel setIdCol(String v) {
    set(idCol(), v);
    return this;
  }

  public TypedGnnClassificationModel setPredictionCol(String v) {
    set(predictionCol(), v);
    return this;
  }

  public TypedGnnClassificationModel setProbabilityCol(String v) {
    set(probabilityCol(), v);
    return this;
  }

  /** The column of the node embeddings; empty (the default) for none. */
  public TypedGnnClassificationModel setEmbeddingCol(String v) {
    set(embeddingCol(), v);
    return this;
  }

  /** The per-epoch training metrics ({@code metrics.jsonl}: epoch, loss, Micro-F1, ...). */
  public Dataset<Row> trainingMetrics(SparkSession spark) {
    return spark.read().json(modelDir().resolve("metrics.jsonl").toString());
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
    boolean embed = !getEmbeddingCol().isBlank();
    InferResult r = infer(spark, embed);
    String target = getTargetType();
    String key = "__fanout_id";
    Dataset<Row> scores =
        r.predictions()
            .filter(col("type").equalTo(target))
            .select(
                col("id").as(key),
                prediction(r.predictions()).as(getPredictionCol()),
                array_to_vector(col("probabilities")).as(getProbabilityCol()));
    if (embed) {
      String ekey = "__fanout_eid";
      Dataset<Row> e =
          r.embeddings()
              .filter(col("type").equalTo(target))
              .select(col("id").as(ekey), array_to_vector(col("embedding")).as(getEmbeddingCol()));
      scores = scores.join(e, scores.col(key).equalTo(e.col(ekey)), "left").drop(ekey);
    }
    return in.join(scores, in.col(VertexColumns.quote(getIdCol())).equalTo(scores.col(key)), "left")
        .drop(key);
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
    return GnnClassificationModel.outputSchema(schema, p, predictionType(p));
  }

  /** Infers over the fitted store, into the model's folder (replacing an earlier store's). */
  private InferResult infer(SparkSession spark, boolean embed) {
    Path out = scratch(spark);
    InferAction infer =
        Fanout.get(spark)
            .infer(store, modelDir)
            .output(out.resolve("predictions").toString())
            .option(InferOptions.OVERWRITE.name(), "true");
    if (embed) {
      infer.embeddings(out.resolve("embeddings").toString());
    }
    return infer.execute();
  }

  /** Checks the id column and appends the output columns. */
  @Override
  public StructType transformSchema(StructType schema) {
    VertexColumns.checkId(schema, this);
    return outputSchema(schema, this);
  }

  private synchronized Path scratch(SparkSession spark) {
    if (scratch == null) {
      scratch =
          (scratchParent == null
                  ? WorkDirs.fresh(spark, "fanout-typed-gnn-transform-")
                  : WorkDirs.freshUnder(Path.of(scratchParent), "transform-"))
              .toString();
    }
    return Path.of(scratch);
  }

  @Override
  public TypedGnnClassificationModel copy(ParamMap extra) {
    TypedGnnClassificationModel m =
        new TypedGnnClassificationModel(
            uid, storeDir(), modelDir(), scratchParent == null ? null : Path.of(scratchParent));
    copyValues(m, extra);
    return m.setParent(parent());
  }

  /** Saves the Params, the typed store and the model directory; see the class comment. */
  @Override
  public MLWriter write() {
    return new GnnModelWriter(this, storeDir(), modelDir());
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
  public String toString() {
    return "TypedGnnClassificationModel: uid="
        + uid
        + ", targetType="
        + getTargetType()
        + ", store="
        + store
        + ", model="
        + modelDir;
  }
}
