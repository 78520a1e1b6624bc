package io.fanout.spark.ml;

import io.fanout.conf.options.SampleOptions;
import io.fanout.sample.Fanouts;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.ml.Estimator;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * A GNN node classifier as a Spark ML {@link Estimator}: {@link #fit} prepares a graph store from
 * the vertices DataFrame it is given and the edges DataFrame of {@link #setEdges}, samples training
 * mini-batches and trains, through the same stages as {@code Fanout.get(spark)}, and returns a
 * {@link GnnClassificationModel}.
 *
 * <pre>{@code
 * GnnClassifier gnn = new GnnClassifier().setEdges(edges).setUndirected(true)
 *     .setFanouts(25, 10).setEpochs(50);
 * Pipeline pipeline = new Pipeline().setStages(new PipelineStage[] {assembler, gnn});
 * Dataset<Row> scored = pipeline.fit(vertices).transform(vertices);  // prediction, probability
 * }</pre>
 *
 * <p>The vertices DataFrame holds the whole graph's vertices (the model scores them, and new ones
 * from their features and edges); those of split {@code train} in {@code splitCol}, or every
 * labeled one when the DataFrame has no such column, are the training seeds. The Params' defaults
 * are the command line's ({@code prepare}, {@code sample} and {@code train}). The store, shards and
 * model go under {@code workDir}, by default a new folder under {@code spark.local.dir} (else
 * {@code java.io.tmpdir}) that nothing removes: the model reads them as long as it lives. A {@code
 * workDir} belongs to the estimator: a second fit into it reuses what an identical earlier fit
 * wrote and replaces what a fit of other inputs or Params wrote (and with it that fit's model).
 */
public final class GnnClassifier extends Estimator<GnnClassificationModel>
    implements GnnClassifierParams, DefaultParamsWritable {
  private static final long serialVersionUID = 1L;

  private final String uid;
  private final GnnParamSet params;
  private transient Dataset<Row> edges;

  public GnnClassifier() {
    this(Identifiable$.MODULE$.randomUID("gnnClassifier"));
  }

  public GnnClassifier(String uid) {
    this.uid = uid;
    this.params = new GnnParamSet(this, GnnParamSet.Kind.CLASSIFIER);
    params.setDefaults(this);
  }

  @Override
  public String uid() {
    return uid;
  }

  @Override
  public GnnParamSet gnnParams() {
    return params;
  }

  /** The edges DataFrame ({@code srcCol}, {@code dstCol}), by the vertices' original ids. */
  public GnnClassifier setEdges(Dataset<Row> edges) {
    this.edges = Objects.requireNonNull(edges, "edges");
    return this;
  }

  /** The edges DataFrame given to {@link #setEdges}, or null. Not saved with the estimator. */
  public Dataset<Row> getEdges() {
    return edges;
  }

  public GnnClassifier setIdCol(String v) {
    set(idCol(), v);
    return this;
  }

  public GnnClassifier setFeaturesCol(String v) {
    set(featuresCol(), v);
    return this;
  }

  public GnnClassifier setLabelCol(String v) {
    set(labelCol(), v);
    return this;
  }

  public GnnClassifier setSplitCol(String v) {
    set(splitCol(), v);
    return this;
  }

  public GnnClassifier setSrcCol(String v) {
    set(srcCol(), v);
    return this;
  }

  public GnnClassifier setDstCol(String v) {
    set(dstCol(), v);
    return this;
  }

  public GnnClassifier setUndirected(boolean v) {
    set(undirected(), v);
    return this;
  }

  public GnnClassifier setDedupe(boolean v) {
    set(dedupe(), v);
    return this;
  }

  public GnnClassifier setSelfLoops(String v) {
    set(selfLoops(), v);
    return this;
  }

  public GnnClassifier setFanouts(int... v) {
    set(fanouts(), v.clone());
    return this;
  }

  public GnnClassifier setBatchSize(int v) {
    set(batchSize(), v);
    return this;
  }

  public GnnClassifier setSampleEpochs(int v) {
    set(sampleEpochs(), v);
    return this;
  }

  public GnnClassifier setModelType(String v) {
    set(modelType(), v);
    return this;
  }

  public GnnClassifier setHidden(int v) {
    set(hidden(), v);
    return this;
  }

  /** Attention heads of every hidden layer of gat, which split {@code hidden} between them. */
  public GnnClassifier setHeads(int v) {
    set(heads(), v);
    return this;
  }

  /** gat's negative slope of the LeakyReLU on the attention scores, in [0, 1). */
  public GnnClassifier setAttnSlope(double v) {
    set(attnSlope(), v);
    return this;
  }

  /** gat's dropout on the attention weights in training, in [0, 1). */
  public GnnClassifier setAttnDropout(double v) {
    set(attnDropout(), v);
    return this;
  }

  public GnnClassifier setDropout(double v) {
    set(dropout(), v);
    return this;
  }

  public GnnClassifier setActivation(String v) {
    set(activation(), v);
    return this;
  }

  public GnnClassifier setFeatureNorm(String v) {
    set(featureNorm(), v);
    return this;
  }

  public GnnClassifier setLearningRate(double v) {
    set(learningRate(), v);
    return this;
  }

  public GnnClassifier setWeightDecay(double v) {
    set(weightDecay(), v);
    return this;
  }

  public GnnClassifier setEpochs(int v) {
    set(epochs(), v);
    return this;
  }

  public GnnClassifier setSeed(long v) {
    set(seed(), v);
    return this;
  }

  public GnnClassifier setWorkDir(String v) {
    set(workDir(), v);
    return this;
  }

  public GnnClassifier setPredictionCol(String v) {
    set(predictionCol(), v);
    return this;
  }

  public GnnClassifier setProbabilityCol(String v) {
    set(probabilityCol(), v);
    return this;
  }

  public GnnClassifier setEmbeddingCol(String v) {
    set(embeddingCol(), v);
    return this;
  }

  /**
   * Prepares, samples and trains; see the class comment.
   *
   * @throws IllegalArgumentException naming the Param when a column is missing or of the wrong
   *     type, when gat's {@code heads} does not divide {@code hidden}, or when no edges were given
   */
  @Override
  public GnnClassificationModel fit(Dataset<?> vertices) {
    transformSchema(vertices.schema(), true);
    if (edges == null) {
      throw new IllegalArgumentException(
          "GnnClassifier has no edges: call setEdges(edgesDataFrame) before fit");
    }
    VertexColumns.checkEdges(edges.schema(), this, "edges");
    Map<String, String> train = FitRun.trainOptions(this);
    Path work =
        getWorkDir().isBlank()
            ? WorkDirs.fresh(vertices.sparkSession(), "fanout-gnn-")
            : WorkDirs.given(getWorkDir());
    Map<String, String> prepare = FitRun.nodePrepareOptions(this);
    Map<String, String> sample = FitRun.sampleOptions(this);
    sample.put(SampleOptions.SPLIT.name(), VertexColumns.TRAIN);
    GraphTables tables =
        GraphTables.of(
            VertexColumns.forPrepare(vertices, this), VertexColumns.endpoints(edges, this));
    SparkSession spark = vertices.sparkSession();
    FitRun.Outputs out =
        new FitRun(work).run(tables.vertices(spark), tables.edges(spark), prepare, sample, train);
    GnnClassificationModel m =
        new GnnClassificationModel(uid, out.store(), out.model(), work, tables);
    copyValues(m, ParamMap.empty());
    m.setParent(this);
    return m;
  }

  /**
   * The schema {@link GnnClassificationModel#transform} gives: the input's columns, then {@code
   * predictionCol}, {@code probabilityCol} and (when set) {@code embeddingCol}.
   */
  @Override
  public StructType transformSchema(StructType schema) {
    VertexColumns.check(schema, this, true);
    return GnnClassificationModel.outputSchema(schema, this);
  }

  @Override
  public GnnClassifier copy(ParamMap extra) {
    GnnClassifier c = new GnnClassifier(uid);
    copyValues(c, extra);
    c.edges = edges;
    return c;
  }

  /** The reader of a saved estimator (its Params; the edges are set again with setEdges). */
  public static MLReader<GnnClassifier> read() {
    return new GnnEstimatorReader<>(GnnClassifier.class, GnnClassifier::new);
  }

  /** Loads an estimator saved with {@code write().save(path)}. */
  public static GnnClassifier load(String path) {
    return read().load(path);
  }

  @Override
  public String toString() {
    return "GnnClassifier: uid=" + uid + ", fanouts=" + Fanouts.format(getFanouts());
  }
}
