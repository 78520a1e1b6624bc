package io.fanout.spark.ml;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.spark.Fanout;
import io.fanout.spark.generate.TypedGraphGenerator;
import io.fanout.spark.generate.TypedGraphLayout;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.Checkpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TypedGnnClassifier} and {@link TypedGnnClassificationModel} on a tiny generated typed
 * graph (papers with noise features, authors with features, featureless terms; the paper labels
 * come through the relations), fitted once in a Pipeline for the class: the fit's checkpoint is the
 * one {@code prepare}, {@code sample} and {@code train} write with the same settings, byte for
 * byte; transform gives {@code infer}'s predictions of the target type; a saved and loaded Pipeline
 * gives the same bits; a saved estimator keeps its Params but not its tables.
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

  static final long PAPERS = 120;

  @BeforeAll
  static void start() {
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
    TypedGnnClassifier gnn = brief().setWorkDir(tmp.resolve("work").toString());
    fitted = new Pipeline().setStages(new PipelineStage[] {gnn}).fit(papers);
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
        .progress(null)
        .execute();
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
