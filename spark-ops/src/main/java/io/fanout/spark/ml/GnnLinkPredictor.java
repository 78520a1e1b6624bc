package io.fanout.spark.ml;

import io.fanout.conf.Task;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.conf.options.SampleOptions;
import io.fanout.conf.options.TrainCommandOptions;
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
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A GNN link predictor as a Spark ML {@link Estimator}: {@link #fit} takes the edges DataFrame
 * ({@code srcCol}, {@code dstCol}), with the vertices of {@link #setVertices} ({@code idCol},
 * {@code featuresCol}), prepares a link-prediction store (the edges split by {@code edgeSplit}, the
 * val and test edges held out of the graph), samples the training edges with negatives and trains,
 * through the same stages as {@code Fanout.get(spark)}; it returns a {@link GnnLinkModel}, whose
 * {@code transform(pairs)} appends {@code scoreCol}.
 *
 * <pre>{@code
 * GnnLinkModel links = new GnnLinkPredictor().setVertices(vertices).setUndirected(true)
 *     .setFanouts(25, 10).setEpochs(50).setSampleEpochs(50).fit(edges);
 * Dataset<Row> scored = links.transform(candidatePairs);     // + score
 * }</pre>
 *
 * <p>The work folder, the defaults and reruns are as {@link GnnClassifier}'s.
 */
public final class GnnLinkPredictor extends Estimator<GnnLinkModel>
    implements GnnLinkParams, DefaultParamsWritable {
  private static final long serialVersionUID = 1L;

  private final String uid;
  private final GnnParamSet params;
  private transient Dataset<Row> vertices;

  public GnnLinkPredictor() {
    this(Identifiable$.MODULE$.randomUID("gnnLinkPredictor"));
  }

  public GnnLinkPredictor(String uid) {
    this.uid = uid;
    this.params = new GnnParamSet(this, GnnParamSet.Kind.LINK);
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

  /** The vertices DataFrame ({@code idCol}, {@code featuresCol}). Not saved with the estimator. */
  public GnnLinkPredictor setVertices(Dataset<Row> vertices) {
    this.vertices = Objects.requireNonNull(vertices, "vertices");
    return this;
  }

  /** The vertices DataFrame given to {@link #setVertices}, or null. */
  public Dataset<Row> getVertices() {
    return vertices;
  }

  public GnnLinkPredictor setIdCol(String v) {
    set(idCol(), v);
    return this;
  }

  public GnnLinkPredictor setFeaturesCol(String v) {
    set(featuresCol(), v);
    return this;
  }

  public GnnLinkPredictor setSrcCol(String v) {
    set(srcCol(), v);
    return this;
  }

  public GnnLinkPredictor setDstCol(String v) {
    set(dstCol(), v);
    return this;
  }

  public GnnLinkPredictor setUndirected(boolean v) {
    set(undirected(), v);
    return this;
  }

  public GnnLinkPredictor setDedupe(boolean v) {
    set(dedupe(), v);
    return this;
  }

  public GnnLinkPredictor setSelfLoops(String v) {
    set(selfLoops(), v);
    return this;
  }

  public GnnLinkPredictor setEdgeSplit(String v) {
    set(edgeSplit(), v);
    return this;
  }

  public GnnLinkPredictor setFanouts(int... v) {
    set(fanouts(), v.clone());
    return this;
  }

  public GnnLinkPredictor setBatchSize(int v) {
    set(batchSize(), v);
    return this;
  }

  public GnnLinkPredictor setSampleEpochs(int v) {
    set(sampleEpochs(), v);
    return this;
  }

  public GnnLinkPredictor setNegatives(String v) {
    set(negatives(), v);
    return this;
  }

  public GnnLinkPredictor setNumNegatives(int v) {
    set(numNegatives(), v);
    return this;
  }

  public GnnLinkPredictor setModelType(String v) {
    set(modelType(), v);
    return this;
  }

  public GnnLinkPredictor setDecoder(String v) {
    set(decoder(), v);
    return this;
  }

  public GnnLinkPredictor setHidden(int v) {
    set(hidden(), v);
    return this;
  }

  /** Attention heads of every hidden layer of gat, which split {@code hidden} between them. */
  public GnnLinkPredictor setHeads(int v) {
    set(heads(), v);
    return this;
  }

  /** gat's negative slope of the LeakyReLU on the attention scores, in [0, 1). */
  public GnnLinkPredictor setAttnSlope(double v) {
    set(attnSlope(), v);
    return this;
  }

  /** gat's dropout on the attention weights in training, in [0, 1). */
  public GnnLinkPredictor setAttnDropout(double v) {
    set(attnDropout(), v);
    return this;
  }

  public GnnLinkPredictor setDropout(double v) {
    set(dropout(), v);
    return this;
  }

  public GnnLinkPredictor setLearningRate(double v) {
    set(learningRate(), v);
    return this;
  }

  public GnnLinkPredictor setEpochs(int v) {
    set(epochs(), v);
    return this;
  }

  public GnnLinkPredictor setSeed(long v) {
    set(seed(), v);
    return this;
  }

  public GnnLinkPredictor setWorkDir(String v) {
    set(workDir(), v);
    return this;
  }

  public GnnLinkPredictor setScoreCol(String v) {
    set(scoreCol(), v);
    return this;
  }

  /**
   * Prepares, samples and trains; see the class comment.
   *
   * @throws IllegalArgumentException naming the Param when a column is missing or of the wrong
   *     type, when gat's {@code heads} does not divide {@code hidden}, or when no vertices were
   *     given
   */
  @Override
  public GnnLinkModel fit(Dataset<?> edges) {
    transformSchema(edges.schema(), true);
    if (vertices == null) {
      throw new IllegalArgumentException(
          "GnnLinkPredictor has no vertices: call setVertices(verticesDataFrame) before fit");
    }
    VertexColumns.checkId(vertices.schema(), this);
    VertexColumns.checkFeatures(vertices.schema(), this);
    Map<String, String> train = FitRun.trainOptions(this);
    train.put(TrainCommandOptions.DECODER.name(), getDecoder());
    Path work =
        getWorkDir().isBlank()
            ? WorkDirs.fresh(edges.sparkSession(), "fanout-gnn-link-")
            : WorkDirs.given(getWorkDir());
    Map<String, String> prepare = FitRun.prepareOptions(this);
    prepare.put(PrepareOptions.TASK.name(), Task.LINK.id());
    if (!getEdgeSplit().isBlank()) {
      prepare.put(PrepareOptions.EDGE_SPLIT.name(), getEdgeSplit());
    }
    Map<String, String> sample = FitRun.sampleOptions(this);
    sample.put(SampleOptions.TASK.name(), Task.LINK.id());
    sample.put(SampleOptions.NEGATIVES.name(), getNegatives());
    sample.put(SampleOptions.NUM_NEGATIVES.name(), Integer.toString(getNumNegatives()));
    FitRun.Outputs out =
        new FitRun(work)
            .run(
                VertexColumns.idAndFeatures(vertices, this),
                VertexColumns.endpoints(edges, this),
                prepare,
                sample,
                train);
    GnnLinkModel m = new GnnLinkModel(uid, out.store(), out.model(), work);
    copyValues(m, ParamMap.empty());
    m.setParent(this);
    return m;
  }

  /**
   * The schema {@link GnnLinkModel#transform} gives: the input's columns, then {@code scoreCol}.
   */
  @Override
  public StructType transformSchema(StructType schema) {
    return GnnLinkModel.outputSchema(schema, this);
  }

  @Override
  public GnnLinkPredictor copy(ParamMap extra) {
    GnnLinkPredictor c = new GnnLinkPredictor(uid);
    copyValues(c, extra);
    c.vertices = vertices;
    return c;
  }

  /** The reader of a saved estimator (its Params; the vertices are set again with setVertices). */
  public static MLReader<GnnLinkPredictor> read() {
    return new GnnEstimatorReader<>(GnnLinkPredictor.class, GnnLinkPredictor::new);
  }

  /** Loads an estimator saved with {@code write().save(path)}. */
  public static GnnLinkPredictor load(String path) {
    return read().load(path);
  }

  static StructType scored(StructType schema, GnnLinkParams p) {
    return VertexColumns.append(
        schema, p.getClass().getSimpleName(), "scoreCol", p.getScoreCol(), DataTypes.DoubleType);
  }
}
