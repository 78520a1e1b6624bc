package io.fanout.spark.ml;

import static org.apache.spark.sql.functions.col;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.spark.ml.evaluation.MulticlassClassificationEvaluator;
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
 * GraphSAGE's inductive promise on cora with the quickstart's settings: a model fitted without 20%
 * of the vertices and their edges ({@link CoraHoldOut}) scores them, given cora's edges, within 2
 * points of the accuracy a model fitted on the whole graph gets on the same vertices. Both fits
 * train on the same 140 seeds.
 */
@Tag("slow")
class InductiveAccuracyTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static CoraHoldOut cora;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("InductiveAccuracyTest");
    cora = new CoraHoldOut(spark);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static GnnClassifier quickstartSettings(Dataset<Row> edges, String work) {
    return new GnnClassifier()
        .setEdges(edges)
        .setUndirected(true)
        .setDedupe(true)
        .setSelfLoops("drop")
        .setFanouts(25, 10)
        .setBatchSize(512)
        .setSampleEpochs(10)
        .setEpochs(50)
        .setSeed(0)
        .setWorkDir(tmp.resolve(work).toString());
  }

  @Test
  void heldOutVerticesScoreWithinTwoPointsOfTransductiveScoring() {
    GnnClassificationModel whole = quickstartSettings(cora.edges, "whole").fit(cora.vertices);
    Dataset<Row> a = whole.transform(cora.heldOut);
    double transductive = accuracy(a);

    GnnClassificationModel without = quickstartSettings(cora.keptEdges, "kept").fit(cora.kept);
    assertThat(without.storeDir()).isNotEqualTo(whole.storeDir());
    double featuresOnly = accuracy(without.transform(cora.heldOut));
    Dataset<Row> b = without.setEdges(cora.edges).transform(cora.heldOut);
    double inductive = accuracy(b);
    Dataset<Row> pa = a.select(col("id").as("a_id"), col("prediction").as("a_prediction"));
    long agree =
        b.join(pa, b.col("id").equalTo(pa.col("a_id")))
            .filter(col("prediction").equalTo(col("a_prediction")))
            .count();

    System.out.printf(
        Locale.ROOT,
        "held-out cora vertices (%d): transductive accuracy %.4f, inductive %.4f (without their"
            + " edges %.4f); the two models agree on %d predictions%n",
        cora.heldOut.count(),
        transductive,
        inductive,
        featuresOnly,
        agree);
    assertThat(Math.abs(inductive - transductive)).isLessThanOrEqualTo(0.02);
  }

  static double accuracy(Dataset<Row> scored) {
    assertThat(scored.filter(col("prediction").isNull()).count()).isZero();
    return new MulticlassClassificationEvaluator()
        .setMetricName("accuracy")
        .evaluate(scored.withColumn("label", col("label").cast(DataTypes.DoubleType)));
  }
}
