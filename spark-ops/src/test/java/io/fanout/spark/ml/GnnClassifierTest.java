package io.fanout.spark.ml;

import static org.apache.spark.ml.functions.array_to_vector;
import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.testing.SparkTestSession;
import io.fanout.train.Checkpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.feature.VectorAssembler;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.param.ParamPair;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link GnnClassifier} and {@link GnnClassificationModel} on cora, fitted briefly (hidden 16, 3
 * epochs) in a Pipeline after a {@link VectorAssembler} once for the class: embeddings, vertices
 * the graph lacks, refits into the same work folder, save and load of the model, the pipeline and
 * the estimator, and the refusals of fit. {@link GnnClassifierPipelineTest} checks the accuracy
 * with the quickstart's settings.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GnnClassifierTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Dataset<Row> vertices;
  static Dataset<Row> edges;
  static PipelineModel fitted;
  static GnnClassificationModel model;

  /** {@link #bits} of the fitted pipeline's output on {@link #vertices}, computed once. */
  private static List<String> fittedBits;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("GnnClassifierTest");
    Path cora = SparkTestSession.dataset("cora");
    // The features as an ML Vector column and the labels as doubles, as ML pipelines make them.
    vertices =
        spark
            .read()
            .parquet(cora.resolve("vertices.parquet").toString())
            .withColumn("words", array_to_vector(col("features")))
            .withColumn("label", col("label").cast(DataTypes.DoubleType))
            .drop("features");
    edges = spark.read().parquet(cora.resolve("edges.parquet").toString());
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static GnnClassifier briefSettings() {
    return new GnnClassifier()
        .setEdges(edges)
        .setUndirected(true)
        .setDedupe(true)
        .setSelfLoops("drop")
        .setFanouts(5, 5)
        .setHidden(16)
        .setLearningRate(0.02)
        .setEpochs(3);
  }

  @Test
  @Order(10)
  void pipelineFitsAndTransforms() {
    VectorAssembler assembler =
        new VectorAssembler().setInputCols(new String[] {"words"}).setOutputCol("features");
    GnnClassifier gnn = briefSettings().setWorkDir(tmp.resolve("work").toString());
    fitted = new Pipeline().setStages(new PipelineStage[] {assembler, gnn}).fit(vertices);
    model = (GnnClassificationModel) fitted.stages()[1];
    assertThat(model.parent()).isSameAs(gnn);
    assertThat(model.getHidden()).isEqualTo(16);

    Dataset<Row> scored = fitted.transform(vertices);
    assertThat(scored.columns())
        .containsExactly("id", "label", "split", "words", "features", "prediction", "probability");
    assertThat(scored.count()).isEqualTo(2708);
    Row first = scored.orderBy("id").first();
    Vector p = first.getAs("probability");
    assertThat(p.size()).isEqualTo(7);
    assertThat((double) first.<Double>getAs("prediction")).isEqualTo(p.argmax());
    assertThat(
            new MulticlassClassificationEvaluator()
                .setMetricName("accuracy")
                .evaluate(scored.filter(col("split").equalTo("test"))))
        .isGreaterThan(0.3);
  }

  @Tag("slow") // four more fits
  @Test
  @Order(15)
  void aSecondFitIntoTheSameWorkDirGivesTheSameModel() throws Exception {
    Path work = tmp.resolve("work");
    Dataset<Row> assembled = fitted.stages()[0].transform(vertices);
    List<String> before = fittedBits();
    GnnClassificationModel again =
        (GnnClassificationModel)
            new Pipeline()
                .setStages(
                    new PipelineStage[] {
                      new VectorAssembler()
                          .setInputCols(new String[] {"words"})
                          .setOutputCol("features"),
                      briefSettings().setWorkDir(work.toString())
                    })
                .fit(vertices)
                .stages()[1];
    assertThat(again.storeDir()).isEqualTo(work.resolve("store"));
    assertThat(again.trainingMetrics(spark).count()).isEqualTo(3);
    assertThat(bits(again.transform(assembled))).isEqualTo(before);
    // The same DataFrames and Params twice: the second fit skips every stage.
    GnnClassificationModel third = briefSettings().setWorkDir(work.toString()).fit(assembled);
    Path checkpoint = work.resolve("model").resolve(Checkpoint.FILE);
    FileTime written = Files.getLastModifiedTime(checkpoint);
    GnnClassificationModel fourth = briefSettings().setWorkDir(work.toString()).fit(assembled);
    assertThat(Files.getLastModifiedTime(checkpoint)).isEqualTo(written);
    assertThat(bits(fourth.transform(assembled))).isEqualTo(before);
    assertThat(fourth.trainingMetrics(spark).count()).isEqualTo(3);
  }

  @Test
  @Order(20)
  void embeddingsAndUnknownVertices() {
    Dataset<Row> ids =
        spark.createDataFrame(
            List.of(
                org.apache.spark.sql.RowFactory.create(0L),
                org.apache.spark.sql.RowFactory.create(-12345L)),
            new org.apache.spark.sql.types.StructType().add("id", DataTypes.LongType));
    GnnClassificationModel m = model.copy(new org.apache.spark.ml.param.ParamMap());
    m.setEmbeddingCol("embedding");
    List<Row> rows = m.transform(ids).orderBy(col("id").desc()).collectAsList();
    Vector e = rows.get(0).getAs("embedding");
    assertThat(e.size()).isEqualTo(m.getHidden());
    assertThat(rows.get(1).isNullAt(rows.get(1).fieldIndex("prediction"))).isTrue();
    assertThat(rows.get(1).isNullAt(rows.get(1).fieldIndex("embedding"))).isTrue();
  }

  @Test
  @Order(30)
  void savedModelLoadsToBitIdenticalOutputs() throws Exception {
    GnnClassificationModel m = model.copy(new org.apache.spark.ml.param.ParamMap());
    m.setEmbeddingCol("embedding");
    List<String> before = bits(m.transform(vertices));
    String path = tmp.resolve("saved-model").toString();
    m.write().overwrite().save(path);
    m.write().overwrite().save(path); // overwrite replaces the earlier save
    GnnClassificationModel loaded = GnnClassificationModel.load(path);
    assertThat(loaded.uid()).isEqualTo(m.uid());
    assertThat(loaded.getEmbeddingCol()).isEqualTo("embedding");
    assertThat(loaded.getFanouts()).containsExactly(5, 5);
    assertThat(loaded.storeDir()).startsWith(Path.of(path));
    assertThat(bits(loaded.transform(vertices))).isEqualTo(before);
    assertThat(loaded.trainingMetrics(spark).count()).isEqualTo(3);
    assertThatThrownBy(() -> m.write().save(path)).hasMessageContaining("already exists");
  }

  @Test
  @Order(40)
  void savedPipelineLoadsToBitIdenticalOutputs() throws Exception {
    List<String> before = fittedBits();
    String path = tmp.resolve("saved-pipeline").toString();
    fitted.write().overwrite().save(path);
    PipelineModel loaded = PipelineModel.load(path);
    assertThat(loaded.stages()[1]).isInstanceOf(GnnClassificationModel.class);
    assertThat(bits(loaded.transform(vertices))).isEqualTo(before);
  }

  @Test
  @Order(50)
  void savedEstimatorKeepsItsParams() throws Exception {
    GnnClassifier gnn = briefSettings().setHidden(32).setModelType("gcn");
    String path = tmp.resolve("saved-estimator").toString();
    gnn.write().overwrite().save(path);
    GnnClassifier loaded = GnnClassifier.load(path);
    assertThat(loaded.uid()).isEqualTo(gnn.uid());
    for (ParamPair<?> pp : gnn.extractParamMap().toList()) {
      Object v = loaded.getOrDefault(loaded.getParam(pp.param().name()));
      assertThat(v).as(pp.param().name()).isEqualTo(pp.value());
    }
    assertThat(loaded.getEdges()).isNull();
    assertThat(Files.exists(Path.of(path, "metadata"))).isTrue();
  }

  @Test
  @Order(60)
  void fitRefusesMissingEdgesAndColumnsInParamTerms() {
    Dataset<Row> v = vertices.withColumnRenamed("words", "features");
    assertThatThrownBy(() -> new GnnClassifier().fit(v))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("GnnClassifier has no edges: call setEdges(edgesDataFrame) before fit");
    assertThatThrownBy(() -> new GnnClassifier().setEdges(edges).setSrcCol("from").fit(v))
        .hasMessageStartingWith(
            "GnnClassifier param srcCol names column 'from', which the edges DataFrame lacks");
    assertThatThrownBy(() -> new GnnClassifier().setEdges(edges).fit(vertices))
        .hasMessageStartingWith(
            "GnnClassifier param featuresCol names column 'features', which the vertices"
                + " DataFrame lacks; it has id, label, split, words")
        .hasMessageContaining("learned embedding per vertex");
    assertThatThrownBy(
            () -> new GnnClassifier().setEdges(edges).setFeaturesCol("split").fit(vertices))
        .hasMessageContaining("param featuresCol names column 'split' of type STRING");
    assertThatThrownBy(
            () ->
                new GnnClassifier()
                    .setEdges(edges)
                    .setModelType("gat")
                    .setHidden(8)
                    .setHeads(3)
                    .fit(v))
        .hasMessage(
            "GnnClassifier param heads has value 3, which does not divide hidden 8 (gat splits the"
                + " hidden width between its heads)");
  }

  @Test
  @Order(70)
  void withoutASplitColumnEveryLabeledVertexTrains() {
    Dataset<Row> v =
        spark.sql(
            "SELECT * FROM VALUES (1L, array(1.0f), 3.0D), (2L, array(1.0f), -1.0D),"
                + " (3L, array(1.0f), CAST(NULL AS DOUBLE)), (4L, array(1.0f), 1.5D)"
                + " AS t(id, features, label)");
    List<Row> rows = VertexColumns.forPrepare(v, new GnnClassifier()).orderBy("id").collectAsList();
    assertThat(rows.get(0).schema().fieldNames())
        .containsExactly("id", "features", "label", "split");
    // Integral doubles become their integer's text, which prepare reads as a label; 1.5 stays
    // "1.5", which prepare refuses naming the row.
    assertThat(rows).extracting(r -> r.get(2)).containsExactly("3", "-1", null, "1.5");
    assertThat(rows).extracting(r -> r.get(3)).containsExactly("train", "none", "none", "train");
  }

  /**
   * {@link #bits} of the fitted pipeline on {@link #vertices}: the assembler, then {@link #model}.
   * The tests that compare a refit and a loaded pipeline with it share the one transform.
   */
  static synchronized List<String> fittedBits() {
    if (fittedBits == null) {
      fittedBits = List.copyOf(bits(fitted.transform(vertices)));
    }
    return fittedBits;
  }

  /** Every output row as text with the exact bits of its doubles, in id order. */
  static List<String> bits(Dataset<Row> scored) {
    List<String> out = new ArrayList<>();
    for (Row r : scored.orderBy("id").collectAsList()) {
      StringBuilder b = new StringBuilder().append(r.<Long>getAs("id"));
      b.append(' ').append(Double.doubleToRawLongBits(r.<Double>getAs("prediction")));
      for (double d : r.<Vector>getAs("probability").toArray()) {
        b.append(' ').append(Double.doubleToRawLongBits(d));
      }
      if (List.of(r.schema().fieldNames()).contains("embedding")) {
        for (double d : r.<Vector>getAs("embedding").toArray()) {
          b.append(' ').append(Double.doubleToRawLongBits(d));
        }
      }
      out.add(b.toString());
    }
    return out;
  }
}
