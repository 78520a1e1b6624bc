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
import java.util.Locale;
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
 * {@link GnnClassifier} in a Spark ML {@link Pipeline} after a {@link VectorAssembler}, on cora
 * with the quickstart's settings (undirected, deduplicated, no self-loops; fanouts 25,10, batches
 * of 512, 10 sampled epochs, 50 training epochs, seed 0); then {@link
 * MulticlassClassificationEvaluator} on its output, and save and load of the model, the pipeline
 * and the estimator. Fitted once for the class (about half a minute), so tagged slow.
 */
@Tag("slow")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class GnnClassifierPipelineTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Dataset<Row> vertices;
  static Dataset<Row> edges;
  static PipelineModel fitted;
  static GnnClassificationModel model;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("GnnClassifierPipelineTest");
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

  static GnnClassifier quickstartSettings() {
    return new GnnClassifier()
        .setEdges(edges)
        .setUndirected(true)
        .setDedupe(true)
        .setSelfLoops("drop")
        .setFanouts(25, 10)
        .setBatchSize(512)
        .setSampleEpochs(10)
        .setEpochs(50)
        .setSeed(0);
  }

  @Test
  @Order(10)
  void pipelineReachesTheQuickstartAccuracy() {
    VectorAssembler assembler =
        new VectorAssembler().setInputCols(new String[] {"words"}).setOutputCol("features");
    GnnClassifier gnn = quickstartSettings().setWorkDir(tmp.resolve("work").toString());
    fitted = new Pipeline().setStages(new PipelineStage[] {assembler, gnn}).fit(vertices);
    model = (GnnClassificationModel) fitted.stages()[1];

    Dataset<Row> scored = fitted.transform(vertices);
    assertThat(scored.schema().apply("prediction").dataType()).isEqualTo(DataTypes.DoubleType);
    assertThat(scored.count()).isEqualTo(2708);
    double accuracy =
        new MulticlassClassificationEvaluator()
            .setMetricName("accuracy")
            .evaluate(scored.filter(col("split").equalTo("test")));
    // The CLI quickstart prints test accuracy 0.7990 with the same settings.
    System.out.printf(Locale.ROOT, "GnnClassifier pipeline test accuracy: %.4f%n", accuracy);
    assertThat(accuracy).isGreaterThanOrEqualTo(0.79);

    // The label column as the integers of the dataset: the evaluator reads it just the same.
    Dataset<Row> intLabels =
        model.transform(
            spark
                .read()
                .parquet(SparkTestSession.dataset("cora").resolve("vertices.parquet").toString()));
    assertThat(
            new MulticlassClassificationEvaluator()
                .setMetricName("accuracy")
                .evaluate(intLabels.filter(col("split").equalTo("test"))))
        .isEqualTo(accuracy);

    Row first = scored.orderBy("id").first();
    Vector p = first.getAs("probability");
    assertThat(p.size()).isEqualTo(7);
    double sum = 0;
    for (double v : p.toArray()) {
      assertThat(v).isBetween(0.0, 1.0);
      sum += v;
    }
    assertThat(sum).isCloseTo(1.0, org.assertj.core.api.Assertions.within(1e-5));
    assertThat((double) first.<Double>getAs("prediction")).isEqualTo(p.argmax());
  }

  @Test
  @Order(15)
  void aSecondFitIntoTheSameWorkDirGivesTheSameModel() throws Exception {
    Path work = tmp.resolve("work");
    Dataset<Row> assembled = fitted.stages()[0].transform(vertices);
    List<String> before = bits(model.transform(assembled));
    GnnClassificationModel again =
        (GnnClassificationModel)
            new Pipeline()
                .setStages(
                    new PipelineStage[] {
                      new VectorAssembler()
                          .setInputCols(new String[] {"words"})
                          .setOutputCol("features"),
                      quickstartSettings().setWorkDir(work.toString())
                    })
                .fit(vertices)
                .stages()[1];
    assertThat(again.storeDir()).isEqualTo(work.resolve("store"));
    assertThat(again.trainingMetrics(spark).count()).isEqualTo(50);
    assertThat(bits(again.transform(assembled))).isEqualTo(before);
    // The same DataFrames and Params twice: the second fit skips every stage.
    GnnClassificationModel third = quickstartSettings().setWorkDir(work.toString()).fit(assembled);
    Path checkpoint = work.resolve("model").resolve(Checkpoint.FILE);
    FileTime written = Files.getLastModifiedTime(checkpoint);
    GnnClassificationModel fourth = quickstartSettings().setWorkDir(work.toString()).fit(assembled);
    assertThat(Files.getLastModifiedTime(checkpoint)).isEqualTo(written);
    assertThat(bits(fourth.transform(assembled))).isEqualTo(before);
    assertThat(fourth.trainingMetrics(spark).count()).isEqualTo(50);
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
    assertThat(loaded.getFanouts()).containsExactly(25, 10);
    assertThat(loaded.storeDir()).startsWith(Path.of(path));
    assertThat(bits(loaded.transform(vertices))).isEqualTo(before);
    assertThat(loaded.trainingMetrics(spark).count()).isEqualTo(50);
    assertThatThrownBy(() -> m.write().save(path)).hasMessageContaining("already exists");
  }

  @Test
  @Order(40)
  void savedPipelineLoadsToBitIdenticalOutputs() throws Exception {
    List<String> before = bits(fitted.transform(vertices));
    String path = tmp.resolve("saved-pipeline").toString();
    fitted.write().overwrite().save(path);
    PipelineModel loaded = PipelineModel.load(path);
    assertThat(loaded.stages()[1]).isInstanceOf(GnnClassificationModel.class);
    assertThat(bits(loaded.transform(vertices))).isEqualTo(before);
  }

  @Test
  @Order(50)
  void savedEstimatorKeepsItsParams() throws Exception {
    GnnClassifier gnn = quickstartSettings().setHidden(32).setModelType("gcn");
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
                + " DataFrame lacks; it has id, label, split, words");
    assertThatThrownBy(
            () -> new GnnClassifier().setEdges(edges).setFeaturesCol("split").fit(vertices))
        .hasMessageContaining("param featuresCol names column 'split' of type STRING");
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
