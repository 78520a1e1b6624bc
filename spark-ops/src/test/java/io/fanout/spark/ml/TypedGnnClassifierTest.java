package io.fanout.spark.ml;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.spark.Fanout;
import io.fanout.spark.generate.TypedGraphGenerator;
import io.fanout.spark.generate.TypedGraphLayout;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.Checkpoint;
import io.fanout.train.EmbeddingsFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.evaluation.MultilabelClassificationEvaluator;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TypedGnnClassifier} and {@link TypedGnnClassificationModel} on a tiny generated typed
 * graph (papers with noise features, authors with features, featureless terms; the paper labels
 * come through the relations), fitted for the class as an hgn and then, in a Pipeline, as an rgcn
 * of bases: each fit's checkpoint is the one {@code prepare}, {@code sample} and {@code train}
 * write with the same settings, byte for byte; transform gives {@code infer}'s predictions of the
 * target type; a saved and loaded Pipeline gives the same bits; a saved estimator keeps its Params
 * but not its tables. One more brief fit trains a multi-label target without features.
 */
class TypedGnnClassifierTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Dataset<Row> papers;
  static Dataset<Row> authors;
  static Dataset<Row> terms;
  static Dataset<Row> writes;
  static Dataset<Row> hasTerm;
  static PipelineModel fitted;
  static byte[] hgnCheckpoint;

  static final long PAPERS = 120;

  @BeforeAll
  static void start() throws Exception {
    spark = SparkTestSession.start("TypedGnnClassifierTest");
    TypedGraphGenerator gen =
        new TypedGraphGenerator(
            TypedGraphLayout.parse(
                "paper:" + PAPERS + ":4,author:80:4,term:40:0",
                "writes=author>paper:480:1,has_term=paper>term:240:1",
                "paper",
                4,
                0.8),
            3,
            5);
    papers = gen.vertices(spark, 2, 0);
    authors = gen.vertices(spark, 2, 1);
    terms = gen.vertices(spark, 2, 2);
    writes = gen.edges(spark, 2, 0);
    hasTerm = gen.edges(spark, 2, 1);
    // an hgn fit first, whose checkpoint is kept; the rgcn fit into the same folder then reuses
    // its store and shards and trains afresh
    String work = tmp.resolve("work").toString();
    TypedGnnClassificationModel hgn = hgn(brief()).setWorkDir(work).fit(papers);
    hgnCheckpoint = Files.readAllBytes(hgn.modelDir().resolve(Checkpoint.FILE));
    TypedGnnClassifier gnn = brief().setBases(2).setWorkDir(work);
    fitted = new Pipeline().setStages(new PipelineStage[] {gnn}).fit(papers);
  }

  /** {@code gnn} as an hgn of settings other than its defaults. */
  static TypedGnnClassifier hgn(TypedGnnClassifier gnn) {
    return gnn.setModelType("hgn")
        .setHeads(2)
        .setAttnSlope(0.1)
        .setAttnDropout(0.3)
        .setAttnResidual(0.25)
        .setInputWidth(12)
        .setLearnedEmbeddings("non-target")
        .setEarlyStop(1);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static TypedGnnClassifier brief() {
    return new TypedGnnClassifier()
        .setTargetType("paper")
        .setVertices("author", authors)
        .setVertices("term", terms)
        .setRelation("writes", "author", "paper", writes)
        .setRelation("has_term", "paper", "term", hasTerm)
        .setAddReverse(true)
        .setFanouts("rev_has_term=3,2;*=5,3")
        .setBatchSize(32)
        .setHidden(8)
        .setLearningRate(0.02)
        .setEpochs(3);
  }

  static TypedGnnClassificationModel model() {
    return (TypedGnnClassificationModel) fitted.stages()[0];
  }

  @Test
  void theFitTrainsTheCheckpointOfTheCommandsAndTransformScoresTheTargetType() throws Exception {
    Path dir = tmp.resolve("commands");
    Fanout fanout = Fanout.get(spark);
    fanout
        .prepare()
        .vertices("paper", papers)
        .vertices("author", authors)
        .vertices("term", terms)
        .edges("writes", "author", "paper", writes)
        .edges("has_term", "paper", "term", hasTerm)
        .option("add-reverse", "true")
        .output(dir.resolve("store").toString())
        .execute();
    fanout
        .sample(dir.resolve("store").toString())
        .output(dir.resolve("shards").toString())
        .split("train")
        .seedType("paper")
        .fanouts("rev_has_term=3,2;*=5,3")
        .batchSize(32)
        .progress(null)
        .execute();
    fanout
        .train(dir.resolve("store").toString(), dir.resolve("shards").toString())
        .modelDir(dir.resolve("model").toString())
        .model("rgcn")
        .hidden(8)
        .epochs(3)
        .option("lr", "0.02")
        .option("bases", "2")
        .progress(null)
        .execute();
    fanout
        .train(dir.resolve("store").toString(), dir.resolve("shards").toString())
        .modelDir(dir.resolve("hgn").toString())
        .model("hgn")
        .hidden(8)
        .epochs(3)
        .option("lr", "0.02")
        .option("heads", "2")
        .option("attn-slope", "0.1")
        .option("attn-dropout", "0.3")
        .option("attn-residual", "0.25")
        .option("input-width", "12")
        .option("learned-embeddings", "non-target")
        .option("early-stop", "1")
        .progress(null)
        .execute();
    assertThat(hgnCheckpoint)
        .as("the hgn fit's checkpoint against the commands'")
        .isEqualTo(Files.readAllBytes(dir.resolve("hgn").resolve(Checkpoint.FILE)));
    TypedGnnClassificationModel m = model();
    assertThat(m.parent()).isInstanceOf(TypedGnnClassifier.class);
    assertThat(m.modelDir()).isEqualTo(tmp.resolve("work").resolve("model"));
    assertThat(Files.readAllBytes(m.modelDir().resolve(Checkpoint.FILE)))
        .as("the fit's checkpoint against the commands'")
        .isEqualTo(Files.readAllBytes(dir.resolve("model").resolve(Checkpoint.FILE)));

    Dataset<Row> scored = fitted.transform(papers);
    assertThat(scored.columns())
        .containsExactly("id", "label", "split", "features", "prediction", "probability");
    List<Row> rows = scored.orderBy("id").collectAsList();
    assertThat(rows).hasSize((int) PAPERS);
    for (Row r : rows) {
      Vector p = r.getAs("probability");
      assertThat(p.size()).isEqualTo(3);
      assertThat((double) r.<Double>getAs("prediction")).isEqualTo(p.argmax());
    }
    assertThat(m.trainingMetrics(spark).count()).isEqualTo(3);
  }

  @Test
  void aSavedPipelineLoadsToTheSamePredictions() throws Exception {
    List<String> before = bits(fitted.transform(papers));
    String path = tmp.resolve("saved-pipeline").toString();
    fitted.write().overwrite().save(path);
    PipelineModel loaded = PipelineModel.load(path);
    assertThat(loaded.stages()[0]).isInstanceOf(TypedGnnClassificationModel.class);
    TypedGnnClassificationModel m = (TypedGnnClassificationModel) loaded.stages()[0];
    assertThat(m.getFanouts()).isEqualTo("rev_has_term=3,2;*=5,3");
    assertThat(m.storeDir()).startsWith(Path.of(path));
    // with the target type's embeddings (the last hidden layer) and an id the graph lacks (nulls)
    m.setEmbeddingCol("embedding");
    Dataset<Row> scored =
        loaded.transform(papers.union(papers.limit(1).withColumn("id", functions.lit(-1L))));
    assertThat(bits(scored.filter(col("id").geq(0)))).isEqualTo(before);
    List<Row> rows = scored.orderBy("id").limit(2).collectAsList();
    assertThat(rows.get(0).isNullAt(rows.get(0).fieldIndex("prediction"))).isTrue();
    assertThat(rows.get(1).<Vector>getAs("embedding").size()).isEqualTo(8);
  }

  @Test
  void aSavedEstimatorKeepsItsParamsAndNotItsTables() throws Exception {
    TypedGnnClassifier gnn = brief().setModelType("hsage").setLearnedEmbeddings("all");
    String path = tmp.resolve("saved-estimator").toString();
    gnn.write().overwrite().save(path);
    TypedGnnClassifier loaded = TypedGnnClassifier.load(path);
    assertThat(loaded.uid()).isEqualTo(gnn.uid());
    assertThat(loaded.getModelType()).isEqualTo("hsage");
    assertThat(loaded.getLearnedEmbeddings()).isEqualTo("all");
    assertThat(loaded.getFanouts()).isEqualTo("rev_has_term=3,2;*=5,3");
    assertThat(loaded.getVertices()).isEmpty();
    assertThatThrownBy(() -> loaded.fit(papers))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("TypedGnnClassifier has no relations: call setRelation(");
  }

  @Test
  void fitRefusesGraphsItCannotPrepareNamingTheParamOrTable() {
    assertThatThrownBy(() -> brief().setTargetType("").fit(papers))
        .hasMessageStartingWith("TypedGnnClassifier param targetType is empty");
    assertThatThrownBy(() -> brief().setVertices("paper", papers).fit(papers))
        .hasMessageStartingWith(
            "TypedGnnClassifier param targetType is 'paper', which setVertices was given too");
    assertThatThrownBy(() -> brief().setRelation("cites", "paper", "venue", writes).fit(papers))
        .hasMessageStartingWith(
            "TypedGnnClassifier relation 'cites' joins vertex type 'venue', which has no table");
    assertThatThrownBy(() -> brief().setVertices("author", writes).fit(papers))
        .hasMessage(
            "TypedGnnClassifier param idCol names column 'id', which the vertices of type"
                + " 'author' DataFrame lacks; it has src, dst");
    assertThatThrownBy(() -> brief().setLabelCol("split").fit(papers))
        .hasMessageStartingWith("TypedGnnClassifier param labelCol names column 'split' of type");
    assertThatThrownBy(() -> brief().setLabelsCol("split").fit(papers))
        .hasMessage(
            "TypedGnnClassifier param labelsCol names column 'split' of type STRING; expected an"
                + " array of integer classes, each vertex's set (null or empty = unlabeled)");
    assertThatThrownBy(() -> brief().setLabelsCol("labels").fit(papers))
        .hasMessageStartingWith(
            "TypedGnnClassifier param labelsCol names column 'labels', which the vertices"
                + " DataFrame lacks");
    // settings of another model than modelType's are refused, as train refuses them
    assertThatThrownBy(() -> brief().setHeads(4).fit(papers))
        .hasMessage(
            "TypedGnnClassifier param heads has value 4, which modelType rgcn does not read (heads"
                + " is hgn's); leave it at 8 or set modelType hgn");
    assertThatThrownBy(() -> hgn(brief()).setBases(2).fit(papers))
        .hasMessage(
            "TypedGnnClassifier param bases has value 2, which modelType hgn does not read (bases"
                + " is rgcn's); leave it at 0 or set modelType rgcn");
    // a type without features needs a learned embedding: refused before preparing when off
    assertThatThrownBy(() -> brief().setLearnedEmbeddings("off").fit(papers))
        .hasMessage(
            "TypedGnnClassifier param learnedEmbeddings is 'off', and the vertices of type 'term'"
                + " DataFrame has no featuresCol column 'features'; it has id (a type without"
                + " features trains a learned embedding per vertex with learnedEmbeddings auto or"
                + " all)");
    assertThatThrownBy(() -> brief().setLearnedEmbeddings("off").fit(papers.drop("features")))
        .hasMessageStartingWith(
            "TypedGnnClassifier param learnedEmbeddings is 'off', and the vertices of type"
                + " 'paper' DataFrame has no featuresCol column 'features'; it has id, label,"
                + " split");
  }

  /**
   * A multi-label target type without features (a learned embedding per paper): papers of id
   * divisible by 3 carry a second class; fit takes the sets from {@code labelsCol}, and transform
   * gives each paper the set of classes whose probability is over 0.5, as the multi-label evaluator
   * reads it.
   */
  @Test
  void aMultiLabelTargetWithoutFeaturesTrainsAndPredictsLabelSets() throws Exception {
    Column label = col("label");
    Dataset<Row> sets =
        papers
            .drop("features")
            .withColumn(
                "labels",
                functions
                    .when(col("id").mod(3).equalTo(0), functions.array(label, label.plus(1).mod(3)))
                    .otherwise(functions.array(label)))
            .drop("label");
    TypedGnnClassificationModel m =
        new TypedGnnClassifier()
            .setTargetType("paper")
            .setLabelsCol("labels")
            .setVertices("author", authors)
            .setRelation("writes", "author", "paper", writes)
            .setFanouts("5")
            .setBatchSize(32)
            .setHidden(8)
            .setLearningRate(0.05)
            .setEpochs(2)
            .setWorkDir(tmp.resolve("multi-label").toString())
            .fit(sets);
    assertThat(EmbeddingsFile.beside(m.modelDir(), Checkpoint.FILE, 0))
        .as("the papers' learned embedding table")
        .exists();
    Dataset<Row> scored = m.transform(sets);
    assertThat(scored.schema().apply("prediction").dataType())
        .isEqualTo(DataTypes.createArrayType(DataTypes.DoubleType));
    List<Row> rows = scored.orderBy("id").collectAsList();
    assertThat(rows).hasSize((int) PAPERS);
    int exact = 0;
    for (Row r : rows) {
      Vector p = r.getAs("probability");
      List<Double> expected = new ArrayList<>();
      for (int k = 0; k < p.size(); k++) {
        if ((float) p.apply(k) > 0.5f) {
          expected.add((double) k);
        }
      }
      List<Double> predicted = r.getList(r.fieldIndex("prediction"));
      assertThat(predicted).as("paper " + r.getAs("id")).isEqualTo(expected);
      List<Integer> truth = r.getList(r.fieldIndex("labels"));
      exact +=
          new TreeSet<>(truth).stream().map(Integer::doubleValue).toList().equals(predicted)
              ? 1
              : 0;
    }
    assertThat(rows)
        .as("papers given a class")
        .anySatisfy(r -> assertThat(r.getList(r.fieldIndex("prediction"))).isNotEmpty());
    double subsetAccuracy =
        new MultilabelClassificationEvaluator()
            .setLabelCol("truth")
            .setMetricName("subsetAccuracy")
            .evaluate(
                scored.withColumn(
                    "truth", functions.array_sort(col("labels")).cast("array<double>")));
    assertThat(subsetAccuracy).isEqualTo((double) exact / PAPERS);
  }

  /** Each row's id, prediction and probability bits, in id order. */
  static List<String> bits(Dataset<Row> scored) {
    List<String> out = new ArrayList<>();
    for (Row r : scored.orderBy("id").collectAsList()) {
      Vector p = r.getAs("probability");
      long[] b = new long[p.size()];
      for (int i = 0; i < b.length; i++) {
        b[i] = Double.doubleToRawLongBits(p.apply(i));
      }
      out.add(r.getAs("id") + " " + r.getAs("prediction") + " " + Arrays.toString(b));
    }
    return out;
  }
}
