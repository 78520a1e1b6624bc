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
import org.apache.spark.ml.linalg.SQLDataTypes;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A trained GNN node classifier, the {@link GnnClassifier}'s model: {@link #transform} appends
 * {@code predictionCol} (double), {@code probabilityCol} (ML Vector of the softmax) and, when
 * {@code embeddingCol} is set, the node embeddings (ML Vector), joined to the input by {@code
 * idCol}.
 *
 * <p>Vertices of the fitted graph are scored transductively: {@code Fanout.get(spark).infer}
 * (full-neighbor inference, on the driver) over the model's graph store and checkpoint; rows whose
 * id the graph lacks get nulls when the input has no {@code featuresCol}. When the input has one
 * and ids the fitted graph lacks, or edges were given with {@link #setEdges}, scoring is inductive:
 * a scoring store is prepared from the fitted vertex table, the input's new vertices (their {@code
 * featuresCol}) and the model's edges (the fitted ones unless set), and the fitted checkpoint
 * scores it by {@code infer --trained-on} the fitted store, which checks that the two agree on
 * feature width and encoding, classes and graph options. The outputs of {@code infer} are written
 * to a folder of the model's own (a new {@code workDir/transform-*} after a fit, a new folder under
 * {@code spark.local.dir} or {@code java.io.tmpdir} after a load; each inductive transform in a new
 * {@code inductive-*} in it) that nothing removes, and the returned DataFrame reads them: a second
 * transductive transform reuses them.
 *
 * <p>{@code write().save(path)} saves the Params (Spark ML's metadata) with copies of the graph
 * store ({@code path/data/store}) and of the model directory ({@code path/data/model}), and the
 * fitted vertex and edge tables as Parquet ({@code path/data/vertices}, {@code path/data/edges});
 * {@link #load} reads them back, and the loaded model gives bit-identical outputs. The path must be
 * on a local or mounted file system, since stores are memory-mapped.
 */
public final class GnnClassificationModel extends Model<GnnClassificationModel>
    implements GnnClassifierParams, MLWritable {
  private static final long serialVersionUID = 1L;

  private final String uid;
  private final GnnParamSet params;
  private final String store;
  private final String modelDir;
  private final String scratchParent;
  private final transient GraphTables tables;
  private transient Dataset<Row> edges;
  private String scratch;

  /**
   * A model over {@code store} and {@code modelDir}, fitted on {@code tables} (null when unknown:
   * no inductive scoring); its transform outputs go to a new folder under {@code scratchParent}, or
   * (null) under the local temp folder.
   */
  GnnClassificationModel(
      String uid, Path store, Path modelDir, Path scratchParent, GraphTables tables) {
    this.uid = uid;
    this.tables = tables;
    this.params = new GnnParamSet(this, GnnParamSet.Kind.CLASSIFIER);
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

  /** The graph store this model scores. */
  public Path storeDir() {
    return Path.of(store);
  }

  /** The model directory (checkpoint and {@code metrics.jsonl}). */
  public Path modelDir() {
    return Path.of(modelDir);
  }

  /**
   * The edges of the graph to score in ({@code srcCol}, {@code dstCol}, by original ids), in place
   * of the fitted ones: the fitted graph's edges with those of new vertices, or another edge set of
   * the same vertices. Not saved with the model. See the class comment.
   */
  public GnnClassificationModel setEdges(Dataset<Row> edges) {
    VertexColumns.checkEdges(edges.schema(), this, "edges");
    this.edges = edges;
    return this;
  }

  /** The edges given to {@link #setEdges}, or null (score in the fitted graph). */
  public Dataset<Row> getEdges() {
    return edges;
  }

  public GnnClassificationModel setFeaturesCol(String v) {
    set(featuresCol(), v);
    return this;
  }

  public GnnClassificationModel setIdCol(String v) {
    set(idCol(), v);
    return this;
  }

  public GnnClassificationModel setPredictionCol(String v) {
    set(predictionCol(), v);
    return this;
  }

  public GnnClassificationModel setProbabilityCol(String v) {
    set(probabilityCol(), v);
    return this;
  }

  /** The column of the node embeddings; empty (the default) for none. */
  public GnnClassificationModel setEmbeddingCol(String v) {
    set(embeddingCol(), v);
    return this;
  }

  /** The per-epoch training metrics ({@code metrics.jsonl}: epoch, loss, accuracy, ...). */
  public Dataset<Row> trainingMetrics(SparkSession spark) {
    return spark.read().json(modelDir().resolve("metrics.jsonl").toString());
  }

  /**
   * Scores the vertices of {@code vertices} by their {@code idCol}; see the class comment. Runs
   * inference now (or reuses its earlier output) and returns a lazy join.
   *
   * @throws io.fanout.store.InvalidInputException when the new vertices' features do not fit the
   *     model (another width, for example)
   */
  @Override
  public Dataset<Row> transform(Dataset<?> vertices) {
    transformSchema(vertices.schema(), true);
    SparkSession spark = vertices.sparkSession();
    Dataset<Row> in = vertices.toDF();
    boolean embed = !getEmbeddingCol().isBlank();
    InferResult r = tables == null ? null : inductive(spark, in, embed);
    if (r == null) {
      r = transductive(spark, embed);
    }
    String key = "__fanout_id";
    Dataset<Row> scores =
        r.predictions()
            .select(
                col("id").as(key),
                col("prediction").cast(DataTypes.DoubleType).as(getPredictionCol()),
                array_to_vector(col("probabilities")).as(getProbabilityCol()));
    if (embed) {
      String ekey = "__fanout_eid";
      Dataset<Row> e =
          r.embeddings()
              .select(col("id").as(ekey), array_to_vector(col("embedding")).as(getEmbeddingCol()));
      scores = scores.join(e, scores.col(key).equalTo(e.col(ekey)), "left").drop(ekey);
    }
    return in.join(scores, in.col(VertexColumns.quote(getIdCol())).equalTo(scores.col(key)), "left")
        .drop(key);
  }

  /** Infers over the fitted store, into the model's folder (replacing an earlier store's). */
  private InferResult transductive(SparkSession spark, boolean embed) {
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

  /**
   * Scores inductively when {@code in} has a features column and ids the fitted graph lacks, or
   * edges were set, into a new folder {@code inductive-*} of the model's; null otherwise.
   */
  private InferResult inductive(SparkSession spark, Dataset<Row> in, boolean embed) {
    Dataset<Row> fitted = tables.vertices(spark);
    Dataset<Row> added =
        Arrays.asList(in.columns()).contains(getFeaturesCol())
            ? InductiveScoring.newVertices(in, fitted, this)
            : null;
    if (edges == null && (added == null || added.isEmpty())) {
      return null;
    }
    Dataset<Row> scoring = InductiveScoring.scoringVertices(fitted, added, this);
    Dataset<Row> e = edges == null ? tables.edges(spark) : VertexColumns.endpoints(edges, this);
    Path dir = WorkDirs.freshUnder(scratch(spark), "inductive-");
    return InductiveScoring.score(spark, this, scoring, e, storeDir(), modelDir(), dir, embed);
  }

  /** Checks the id column and appends the output columns. */
  @Override
  public StructType transformSchema(StructType schema) {
    VertexColumns.check(schema, this, false);
    return outputSchema(schema, this);
  }

  static StructType outputSchema(StructType schema, GnnNodeParams p) {
    return outputSchema(schema, p, DataTypes.DoubleType);
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

  private synchronized Path scratch(SparkSession spark) {
    if (scratch == null) {
      scratch =
          (scratchParent == null
                  ? WorkDirs.fresh(spark, "fanout-gnn-transform-")
                  : WorkDirs.freshUnder(Path.of(scratchParent), "transform-"))
              .toString();
    }
    return Path.of(scratch);
  }

  @Override
  public GnnClassificationModel copy(ParamMap extra) {
    GnnClassificationModel m =
        new GnnClassificationModel(
            uid,
            storeDir(),
            modelDir(),
            scratchParent == null ? null : Path.of(scratchParent),
            tables);
    m.edges = edges;
    copyValues(m, extra);
    return m.setParent(parent());
  }

  /** Saves the Params, the graph store and the model directory; see the class comment. */
  @Override
  public MLWriter write() {
    return new GnnModelWriter(this, storeDir(), modelDir(), tables);
  }

  /** The reader of a model saved with {@code write().save(path)}. */
  public static MLReader<GnnClassificationModel> read() {
    return new GnnModelReader<>(GnnClassificationModel.class, GnnClassificationModel::loaded);
  }

  /** Loads a model saved with {@code write().save(path)}. */
  public static GnnClassificationModel load(String path) {
    return read().load(path);
  }

  /** A model over a loaded copy of the store and model directory. */
  static GnnClassificationModel loaded(String uid, Path store, Path modelDir) {
    return new GnnClassificationModel(
        uid, store, modelDir, null, GraphTables.saved(store.toAbsolutePath().getParent()));
  }

  @Override
  public String toString() {
    return "GnnClassificationModel: uid=" + uid + ", store=" + store + ", model=" + modelDir;
  }
}
