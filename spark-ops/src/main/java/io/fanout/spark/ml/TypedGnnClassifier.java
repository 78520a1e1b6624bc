package io.fanout.spark.ml;

import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import org.apache.spark.ml.Estimator;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.DefaultParamsWritable;
import org.apache.spark.ml.util.Identifiable$;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;

/**
 * A GNN node classifier of a typed (heterogeneous) graph as a Spark ML {@link Estimator}: {@link
 * #fit} takes the target type's vertices, prepares a typed graph store from them, the other types'
 * tables ({@link #setVertices}) and the relations ({@link #setRelation}), samples training
 * mini-batches of the target type with fanouts per relation and trains a relation-aware model
 * ({@code rgcn}, {@code hsage} or {@code hgn}), through the same stages as {@code
 * Fanout.get(spark).prepare().vertices(...).edges(...)}, {@code sample} and {@code train}, and
 * returns a {@link TypedGnnClassificationModel}.
 *
 * <pre>{@code
 * TypedGnnClassifier gnn = new TypedGnnClassifier().setTargetType("paper")
 *     .setVertices("author", authors).setVertices("term", terms)
 *     .setRelation("writes", "author", "paper", writes)
 *     .setRelation("has_term", "paper", "term", hasTerm)
 *     .setAddReverse(true).setFanouts("has_term=5,3;*=10,5").setEpochs(20);
 * Dataset<Row> scored = gnn.fit(papers).transform(papers);  // + prediction, probability
 * }</pre>
 *
 * <p>Every table names its columns by the same Params: {@code idCol} and {@code featuresCol} (a
 * type whose table lacks it has no features and learns an embedding per vertex, as {@code
 * learnedEmbeddings} says), the target's {@code labelCol} and {@code splitCol}, the relations'
 * {@code srcCol} and {@code dstCol}. Ids are unique per type. The target type's vertices of split
 * {@code train}, or every labeled one when its DataFrame has no split column, are the training
 * seeds. The tables given by setters are not Params and are not saved with the estimator. The work
 * folder is {@link GnnClassifier}'s: {@code workDir}, else a new folder under {@code
 * spark.local.dir} (or {@code java.io.tmpdir}) that nothing removes.
 */
public final class TypedGnnClassifier extends Estimator<TypedGnnClassificationModel>
    implements TypedGnnParams, DefaultParamsWritable {
  private static final long serialVersionUID = 1L;

  private final String uid;
  private final GnnParamSet params;
  private transient TypedGraphInputs graph;

  public TypedGnnClassifier() {
    this(Identifiable$.MODULE$.randomUID("typedGnnClassifier"));
  }

  public TypedGnnClassifier(String uid) {
    this.uid = uid;
    this.params = new GnnParamSet(this, GnnParamSet.Kind.TYPED_CLASSIFIER);
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

  private synchronized TypedGraphInputs graph() {
    if (graph == null) {
      graph = new TypedGraphInputs();
    }
    return graph;
  }

  /**
   * The vertices of type {@code type}, another than the target type ({@code idCol}, and {@code
   * featuresCol} when the type has features); types take dense-id ranges in the order they are set,
   * after the target type. Not saved with the estimator.
   */
  public TypedGnnClassifier setVertices(String type, Dataset<Row> vertices) {
    graph().vertices(type, vertices);
    return this;
  }

  /**
   * Relation {@code name}: edges ({@code srcCol}, {@code dstCol}, by original ids) from vertices of
   * {@code srcType} into vertices of {@code dstType}. Not saved with the estimator.
   */
  public TypedGnnClassifier setRelation(
      String name, String srcType, String dstType, Dataset<Row> edges) {
    graph().relation(name, srcType, dstType, edges);
    return this;
  }

  /** The tables given to {@link #setVertices}, by type, in the order set. */
  public Map<String, Dataset<Row>> getVertices() {
    return Collections.unmodifiableMap(graph().vertices());
  }

  public TypedGnnClassifier setTargetType(String v) {
    set(targetType(), v);
    return this;
  }

  public TypedGnnClassifier setIdCol(String v) {
    set(idCol(), v);
    return this;
  }

  public TypedGnnClassifier setFeaturesCol(String v) {
    set(featuresCol(), v);
    return this;
  }

  public TypedGnnClassifier setLabelCol(String v) {
    set(labelCol(), v);
    return this;
  }

  /**
   * The target type's column of integer arrays, each vertex's set of classes: a multi-label target,
   * read instead of {@code labelCol}; empty (the default) for single labels.
   */
  public TypedGnnClassifier setLabelsCol(String v) {
    set(labelsCol(), v);
    return this;
  }

  public TypedGnnClassifier setSplitCol(String v) {
    set(splitCol(), v);
    return this;
  }

  public TypedGnnClassifier setSrcCol(String v) {
    set(srcCol(), v);
    return this;
  }

  public TypedGnnClassifier setDstCol(String v) {
    set(dstCol(), v);
    return this;
  }

  public TypedGnnClassifier setAddReverse(boolean v) {
    set(addReverse(), v);
    return this;
  }

  /** Fanouts per relation and hop: {@code 'rel=10,5;*=10,5'}, or {@code '10,5'} for all. */
  public TypedGnnClassifier setFanouts(String v) {
    set(fanouts(), v);
    return this;
  }

  public TypedGnnClassifier setBatchSize(int v) {
    set(batchSize(), v);
    return this;
  }

  public TypedGnnClassifier setSampleEpochs(int v) {
    set(sampleEpochs(), v);
    return this;
  }

  public TypedGnnClassifier setModelType(String v) {
    set(modelType(), v);
    return this;
  }

  public TypedGnnClassifier setHidden(int v) {
    set(hidden(), v);
    return this;
  }

  /** hgn's attention heads of every hidden layer, each {@code hidden} wide. */
  public TypedGnnClassifier setHeads(int v) {
    set(heads(), v);
    return this;
  }

  /** hgn's negative slope of the LeakyReLU on the attention scores, in [0, 1). */
  public TypedGnnClassifier setAttnSlope(double v) {
    set(attnSlope(), v);
    return this;
  }

  /** hgn's dropout on the attention weights in training, in [0, 1). */
  public TypedGnnClassifier setAttnDropout(double v) {
    set(attnDropout(), v);
    return this;
  }

  /** hgn's edge residual beta in [0, 1) (0: off; acts from 3 layers on). */
  public TypedGnnClassifier setAttnResidual(double v) {
    set(attnResidual(), v);
    return this;
  }

  /**
   * Ends training once {@code v} epochs in a row bring no better Micro-F1 on the target type's val
   * vertices (0: off; {@code train --early-stop}).
   */
  public TypedGnnClassifier setEarlyStop(int v) {
    set(earlyStop(), v);
    return this;
  }

  /** hgn's width of the per-type input projections and learned rows (0: the hidden width). */
  public TypedGnnClassifier setInputWidth(int v) {
    set(inputWidth(), v);
    return this;
  }

  /** rgcn's relation weights as combinations of this many shared bases (0: none). */
  public TypedGnnClassifier setBases(int v) {
    set(bases(), v);
    return this;
  }

  public TypedGnnClassifier setDropout(double v) {
    set(dropout(), v);
    return this;
  }

  public TypedGnnClassifier setFeatureNorm(String v) {
    set(featureNorm(), v);
    return this;
  }

  public TypedGnnClassifier setLearnedEmbeddings(String v) {
    set(learnedEmbeddings(), v);
    return this;
  }

  public TypedGnnClassifier setLearningRate(double v) {
    set(learningRate(), v);
    return this;
  }

  public TypedGnnClassifier setWeightDecay(double v) {
    set(weightDecay(), v);
    return this;
  }

  public TypedGnnClassifier setEpochs(int v) {
    set(epochs(), v);
    return this;
  }

  public TypedGnnClassifier setSeed(long v) {
    set(seed(), v);
    return this;
  }

  public TypedGnnClassifier setWorkDir(String v) {
    set(workDir(), v);
    return this;
  }

  public TypedGnnClassifier setPredictionCol(String v) {
    set(predictionCol(), v);
    return this;
  }

  public TypedGnnClassifier setProbabilityCol(String v) {
    set(probabilityCol(), v);
    return this;
  }

  public TypedGnnClassifier setEmbeddingCol(String v) {
    set(embeddingCol(), v);
    return this;
  }

  /**
   * Prepares, samples and trains; see the class comment.
   *
   * @throws IllegalArgumentException naming the Param when no target type is set, a column is
   *     missing or of the wrong type, a table lacks features with {@code learnedEmbeddings off}, a
   *     setting of another model than {@code modelType} is set, or no relations were given
   */
  @Override
  public TypedGnnClassificationModel fit(Dataset<?> vertices) {
    transformSchema(vertices.schema(), true);
    if (getTargetType().isBlank()) {
      throw new IllegalArgumentException(
          "TypedGnnClassifier param targetType is empty; set the vertex type of fit's DataFrame"
              + " with setTargetType(type)");
    }
    TypedGraphInputs g = graph();
    g.check(this, vertices.schema());
    Map<String, String> train = FitRun.typedTrainOptions(this);
    Path work =
        getWorkDir().isBlank()
            ? WorkDirs.fresh(vertices.sparkSession(), "fanout-typed-gnn-")
            : WorkDirs.given(getWorkDir());
    Dataset<Row> target =
        multiLabel()
            ? VertexColumns.forPrepareLabelSets(vertices, this)
            : VertexColumns.forPrepare(vertices, this);
    FitRun.Outputs out =
        new FitRun(work)
            .run(
                vertices.sparkSession(),
                fanout -> g.prepare(fanout, target, this),
                FitRun.typedPrepareOptions(this),
                FitRun.typedSampleOptions(this),
                train);
    TypedGnnClassificationModel m =
        new TypedGnnClassificationModel(uid, out.store(), out.model(), work);
    copyValues(m, ParamMap.empty());
    m.setParent(this);
    return m;
  }

  /**
   * The schema {@link TypedGnnClassificationModel#transform} gives: the input's columns, then
   * {@code predictionCol} (double; with {@code labelsCol}, the predicted set: array of double),
   * {@code probabilityCol} and (when set) {@code embeddingCol}.
   */
  @Override
  public StructType transformSchema(StructType schema) {
    VertexColumns.checkId(schema, this);
    VertexColumns.checkFeaturesIfPresent(schema, this, "vertices");
    if (multiLabel()) {
      VertexColumns.checkLabelSetsAndSplit(schema, this);
    } else {
      VertexColumns.checkLabelAndSplit(schema, this);
    }
    return TypedGnnClassificationModel.outputSchema(schema, this);
  }

  @Override
  public TypedGnnClassifier copy(ParamMap extra) {
    TypedGnnClassifier c = new TypedGnnClassifier(uid);
    copyValues(c, extra);
    c.graph = graph().copy();
    return c;
  }

  /** The reader of a saved estimator (its Params; the tables are set again). */
  public static MLReader<TypedGnnClassifier> read() {
    return new GnnEstimatorReader<>(TypedGnnClassifier.class, TypedGnnClassifier::new);
  }

  /** Loads an estimator saved with {@code write().save(path)}. */
  public static TypedGnnClassifier load(String path) {
    return read().load(path);
  }

  @Override
  public String toString() {
    return "TypedGnnClassifier: uid="
        + uid
        + ", targetType="
        + getTargetType()
        + ", fanouts="
        + getFanouts();
  }
}
