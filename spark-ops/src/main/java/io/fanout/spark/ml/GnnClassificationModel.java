package io.fanout.spark.ml;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.fanout.spark.InferResult;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
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
public final class GnnClassificationModel extends GnnNodeModel<GnnClassificationModel>
    implements GnnClassifierParams {
  private static final long serialVersionUID = 1L;

  private final transient GraphTables tables;
  private transient Dataset<Row> edges;

  /**
   * A model over {@code store} and {@code modelDir}, fitted on {@code tables} (null when unknown:
   * no inductive scoring); its transform outputs go to a new folder under {@code scratchParent}, or
   * (null) under the local temp folder.
   */
  GnnClassificationModel(
      String uid, Path store, Path modelDir, Path scratchParent, GraphTables tables) {
    super(
        uid, GnnParamSet.Kind.CLASSIFIER, store, modelDir, scratchParent, "fanout-gnn-transform-");
    this.tables = tables;
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
    InferResult r = tables == null ? null : inductive(spark, in, embeds());
    if (r == null) {
      r = transductive(spark, embeds());
    }
    return joined(in, r, col("prediction").cast(DataTypes.DoubleType), lit(true));
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
    return GnnNodeModel.outputSchema(schema, p, DataTypes.DoubleType);
  }

  @Override
  public GnnClassificationModel copy(ParamMap extra) {
    GnnClassificationModel m =
        new GnnClassificationModel(uid(), storeDir(), modelDir(), scratchParent(), tables);
    m.edges = edges;
    return copied(m, extra);
  }

  /** The fitted vertex and edge tables, saved for inductive scoring; see the class comment. */
  @Override
  GraphTables savedTables() {
    return tables;
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
}
