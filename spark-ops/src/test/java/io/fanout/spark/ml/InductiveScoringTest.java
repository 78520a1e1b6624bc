package io.fanout.spark.ml;

import static org.apache.spark.ml.functions.array_to_vector;
import static org.apache.spark.ml.functions.vector_to_array;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.slice;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.fanout.spark.Fanout;
import io.fanout.spark.InferResult;
import io.fanout.store.InvalidInputException;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.ml.linalg.Vector;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inductive scoring of {@link GnnClassificationModel}, fitted briefly (hidden 16, 3 epochs) on cora
 * without 20% of its vertices ({@link CoraHoldOut}): the held-out vertices get the predictions a
 * full re-prepare of cora scored with the same checkpoint gives, a saved model scores them the
 * same, they get nulls without features, and mismatches are refused by name. {@link
 * InductiveAccuracyTest} compares the accuracy with transductive scoring.
 */
class InductiveScoringTest {
  @TempDir static Path tmp;
  static SparkSession spark;
  static CoraHoldOut cora;
  static GnnClassificationModel model;

  @BeforeAll
  static void fit() {
    spark = SparkTestSession.start("InductiveScoringTest");
    cora = new CoraHoldOut(spark);
    model =
        new GnnClassifier()
            .setEdges(cora.keptEdges)
            .setUndirected(true)
            .setDedupe(true)
            .setSelfLoops("drop")
            .setFanouts(5, 5)
            .setHidden(16)
            .setLearningRate(0.02)
            .setEpochs(3)
            .setWorkDir(tmp.resolve("work").toString())
            .fit(cora.kept);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void newVerticesGetTheScoresOfAFullReprepare() {
    long held = cora.heldOut.count();
    assertThat(held).isBetween(514L, 569L); // 19% to 21% of 2708
    Map<Long, float[]> inductive =
        probabilities(model.copy(ParamMap.empty()).setEdges(cora.edges).transform(cora.heldOut));
    assertThat(inductive).hasSize((int) held);

    // The same checkpoint over cora prepared afresh, from its files, as one store.
    Path store = tmp.resolve("reprepared");
    Fanout.get(spark)
        .prepare(cora.raw, cora.edges)
        .options(FitRun.nodePrepareOptions(model))
        .output(store.toString())
        .execute();
    InferResult full =
        Fanout.get(spark)
            .infer(store.toString(), model.modelDir().toString())
            .trainedOn(model.storeDir().toString())
            .output(tmp.resolve("reprepared-predictions").toString())
            .execute();
    Map<Long, float[]> reference = new HashMap<>();
    for (Row r : full.predictions().collectAsList()) {
      List<Float> p = r.getList(r.fieldIndex("probabilities"));
      float[] a = new float[p.size()];
      for (int i = 0; i < a.length; i++) {
        a[i] = p.get(i);
      }
      reference.put(((Number) r.getAs("id")).longValue(), a);
    }
    double worst = 0;
    for (Map.Entry<Long, float[]> e : inductive.entrySet()) {
      float[] want = reference.get(e.getKey());
      assertThat(e.getValue()).hasSameSizeAs(want);
      for (int i = 0; i < want.length; i++) {
        worst = Math.max(worst, Math.abs(e.getValue()[i] - want[i]));
      }
      assertThat(argmax(e.getValue())).as("vertex %d", e.getKey()).isEqualTo(argmax(want));
    }
    System.out.printf(
        Locale.ROOT,
        "inductive vs re-prepared: %d vertices, largest probability difference %s%n",
        held,
        worst);
    assertThat(worst).isLessThan(1e-5);
  }

  @Tag("slow") // one more scoring store
  @Test
  void withTheFittedEdgesNewVerticesScoreFromTheirFeaturesAlone() {
    Dataset<Row> scored = model.transform(cora.heldOut);
    assertThat(scored.filter(col("prediction").isNull()).count()).isZero();
    Vector p = scored.first().getAs("probability");
    assertThat(p.size()).isEqualTo(7);
    double sum = 0;
    for (double v : p.toArray()) {
      sum += v;
    }
    assertThat(sum).isCloseTo(1.0, within(1e-5));
    // Vertices of the fitted graph keep their transductive scores.
    Dataset<Row> some = cora.kept.limit(50);
    List<Row> alone =
        model.transform(some).select("id", "probability").orderBy("id").collectAsList();
    List<Row> mixed =
        model
            .transform(some.unionByName(cora.heldOut))
            .select("id", "probability")
            .orderBy("id")
            .collectAsList()
            .stream()
            .filter(r -> alone.stream().anyMatch(a -> a.get(0).equals(r.get(0))))
            .toList();
    assertThat(mixed).hasSize(50);
    for (int i = 0; i < 50; i++) {
      double[] a = ((Vector) alone.get(i).get(1)).toArray();
      double[] b = ((Vector) mixed.get(i).get(1)).toArray();
      for (int k = 0; k < a.length; k++) {
        assertThat(b[k]).isCloseTo(a[k], within(1e-6));
      }
    }
  }

  @Tag("slow") // one more scoring store
  @Test
  void aSavedModelScoresNewVerticesAsTheFittedOne() throws Exception {
    Path saved = tmp.resolve("saved");
    model.write().save(saved.toString());
    GnnClassificationModel loaded = GnnClassificationModel.load(saved.toString());
    Map<Long, float[]> a =
        probabilities(model.copy(ParamMap.empty()).setEdges(cora.edges).transform(cora.heldOut));
    Map<Long, float[]> b = probabilities(loaded.setEdges(cora.edges).transform(cora.heldOut));
    assertThat(b.keySet()).isEqualTo(a.keySet());
    a.forEach((id, p) -> assertThat(b.get(id)).as("vertex %d", id).containsExactly(p));
  }

  @Test
  void withoutAFeaturesColumnNewVerticesGetNulls() {
    Dataset<Row> scored = model.transform(cora.heldOut.drop("features"));
    assertThat(scored.filter(col("prediction").isNull()).count()).isEqualTo(cora.heldOut.count());
  }

  @Test
  void featuresOfAnotherWidthAreRefused() {
    Dataset<Row> narrow =
        cora.heldOut.withColumn(
            "features", array_to_vector(slice(vector_to_array(col("features"), "float64"), 1, 10)));
    assertThatThrownBy(() -> model.transform(narrow))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("feature arrays of differing length");
  }

  @Test
  void inferTrainedOnRefusesAStoreOfAnotherFeatureDim() {
    StructType vs =
        new StructType()
            .add("id", DataTypes.LongType)
            .add("features", DataTypes.createArrayType(DataTypes.FloatType))
            .add("label", DataTypes.IntegerType)
            .add("split", DataTypes.StringType);
    Dataset<Row> v =
        spark.createDataFrame(
            List.of(
                RowFactory.create(1L, new float[] {1, 0, 0, 0}, 0, "none"),
                RowFactory.create(2L, new float[] {0, 1, 0, 0}, 6, "none")),
            vs);
    StructType es = new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType);
    Dataset<Row> e = spark.createDataFrame(List.of(RowFactory.create(1L, 2L)), es);
    Path store = tmp.resolve("narrow-store");
    Fanout.get(spark)
        .prepare(v, e)
        .options(FitRun.nodePrepareOptions(model))
        .output(store.toString())
        .execute();
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .infer(store.toString(), model.modelDir().toString())
                    .trainedOn(model.storeDir().toString())
                    .output(tmp.resolve("narrow-out").toString())
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("feature dim mismatch")
        .hasMessageContaining("has feature_dim 4")
        .hasMessageContaining("whose feature_dim is 1433");
    // Without --trained-on the checkpoint scores only the store it was trained on.
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .infer(store.toString(), model.modelDir().toString())
                    .output(tmp.resolve("narrow-out").toString())
                    .execute())
        .isInstanceOf(InvalidInputException.class);
    // --trained-on names the store the checkpoint was trained on, checked by its fingerprint.
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .infer(model.storeDir().toString(), model.modelDir().toString())
                    .trainedOn(store.toString())
                    .output(tmp.resolve("narrow-out").toString())
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("was not trained on " + store);
  }

  @Test
  void inferTrainedOnRefusesAStoreOfOtherGraphOptions() {
    Map<String, String> directed = FitRun.nodePrepareOptions(model);
    directed.put("undirected", "false");
    Path store = tmp.resolve("directed-store");
    Fanout.get(spark)
        .prepare(cora.raw, cora.edges)
        .options(directed)
        .output(store.toString())
        .execute();
    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .infer(store.toString(), model.modelDir().toString())
                    .trainedOn(model.storeDir().toString())
                    .output(tmp.resolve("directed-out").toString())
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("graph option mismatch")
        .hasMessageContaining("undirected = 'false'")
        .hasMessageContaining("prepared with 'true'");
  }

  /** The probabilities of a transform's output by id. */
  static Map<Long, float[]> probabilities(Dataset<Row> scored) {
    Map<Long, float[]> m = new HashMap<>();
    for (Row r : scored.select("id", "probability").collectAsList()) {
      double[] p = ((Vector) r.get(1)).toArray();
      float[] f = new float[p.length];
      for (int i = 0; i < f.length; i++) {
        f[i] = (float) p[i];
      }
      m.put(((Number) r.get(0)).longValue(), f);
    }
    return m;
  }

  static int argmax(float[] a) {
    int best = 0;
    for (int i = 1; i < a.length; i++) {
      if (a[i] > a[best]) {
        best = i;
      }
    }
    return best;
  }
}
