package io.fanout.spark.ml;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.ml.evaluation.BinaryClassificationEvaluator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link GnnLinkPredictor} on cora, fitted briefly once for the class: {@link GnnLinkModel} scores
 * candidate pairs (edges of the graph against shifted pairs) with an area under the ROC curve well
 * above chance under {@link BinaryClassificationEvaluator}, keeps the pairs' rows, and saves and
 * loads to bit-identical scores. Preparing the split edges, sampling them with negatives and
 * training take about half a minute, so tagged slow; {@link GnnParamsTest} and {@link
 * GnnClassifierTest} cover the code it shares with the classifier in the fast set.
 */
@Tag("slow")
class GnnLinkPredictorTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static Dataset<Row> vertices;
  static Dataset<Row> edges;
  static GnnLinkModel model;
  static Dataset<Row> pairs;

  @BeforeAll
  static void fit() {
    spark = SparkTestSession.start("GnnLinkPredictorTest");
    Path cora = SparkTestSession.dataset("cora");
    vertices = spark.read().parquet(cora.resolve("vertices.parquet").toString());
    edges = spark.read().parquet(cora.resolve("edges.parquet").toString());
    model =
        new GnnLinkPredictor()
            .setVertices(vertices)
            .setUndirected(true)
            .setDedupe(true)
            .setSelfLoops("drop")
            .setFanouts(10, 5)
            .setHidden(32)
            .setEpochs(5)
            .setSampleEpochs(5)
            .setWorkDir(tmp.resolve("work").toString())
            .fit(edges);
    // Positives: edges of cora; negatives: the same sources with the destination of another edge.
    Dataset<Row> some = edges.orderBy("src", "dst").limit(300);
    List<Row> rows = some.collectAsList();
    List<Row> negatives = new ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      Row other = rows.get((i * 131 + 57) % rows.size());
      negatives.add(
          org.apache.spark.sql.RowFactory.create(rows.get(i).getLong(0), other.getLong(1)));
    }
    Dataset<Row> neg =
        spark.createDataFrame(negatives, some.schema()).withColumn("label", lit(0.0));
    pairs = some.withColumn("label", lit(1.0)).unionByName(neg);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void scoresSeparateEdgesFromOtherPairs() {
    Dataset<Row> scored = model.transform(pairs);
    assertThat(scored.columns()).containsExactly("src", "dst", "label", "score");
    assertThat(scored.schema().apply("score").dataType()).isEqualTo(DataTypes.DoubleType);
    assertThat(scored.count()).isEqualTo(pairs.count());
    assertThat(scored.filter(col("score").isNull()).count()).isZero();
    double auc = new BinaryClassificationEvaluator().setRawPredictionCol("score").evaluate(scored);
    System.out.printf(
        Locale.ROOT, "GnnLinkModel AUC on cora edges against shifted pairs: %.4f%n", auc);
    assertThat(auc).isGreaterThan(0.75);
  }

  @Test
  void savedModelLoadsToBitIdenticalScores() throws Exception {
    List<String> before = bits(model.transform(pairs));
    String path = tmp.resolve("saved-link-model").toString();
    model.write().overwrite().save(path);
    GnnLinkModel loaded = GnnLinkModel.load(path);
    assertThat(loaded.getDecoder()).isEqualTo(model.getDecoder());
    assertThat(bits(loaded.transform(pairs))).isEqualTo(before);
  }

  @Test
  void fitRefusesMissingVerticesInParamTerms() {
    assertThatThrownBy(() -> new GnnLinkPredictor().fit(edges))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "GnnLinkPredictor has no vertices: call setVertices(verticesDataFrame) before fit");
    assertThatThrownBy(() -> model.transform(vertices))
        .hasMessageStartingWith(
            "GnnLinkModel param srcCol names column 'src', which the pairs DataFrame lacks");
  }

  static List<String> bits(Dataset<Row> scored) {
    List<String> out = new ArrayList<>();
    for (Row r : scored.orderBy("src", "dst", "label").collectAsList()) {
      out.add(
          r.getLong(0)
              + " "
              + r.getLong(1)
              + " "
              + Double.doubleToRawLongBits(r.<Double>getAs("score")));
    }
    return out;
  }
}
