package io.fanout.spark.ml;

import static org.apache.spark.ml.functions.array_to_vector;
import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.ml.Pipeline;
import org.apache.spark.ml.PipelineModel;
import org.apache.spark.ml.PipelineStage;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
import org.apache.spark.ml.feature.VectorAssembler;
import org.apache.spark.ml.linalg.Vector;
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
 * of 512, 10 sampled epochs, 50 training epochs, seed 0), reaches the quickstart's test accuracy
 * under {@link MulticlassClassificationEvaluator}, and its saved model loads to bit-identical
 * outputs. About half a minute, so tagged slow; {@link GnnClassifierTest} covers the same code with
 * a brief fit.
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
  @Order(20)
  void savedModelLoadsToBitIdenticalOutputs() throws Exception {
    List<String> before = bits(model.transform(fitted.stages()[0].transform(vertices)));
    String path = tmp.resolve("saved-model").toString();
    model.write().overwrite().save(path);
    GnnClassificationModel loaded = GnnClassificationModel.load(path);
    assertThat(bits(loaded.transform(fitted.stages()[0].transform(vertices)))).isEqualTo(before);
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
