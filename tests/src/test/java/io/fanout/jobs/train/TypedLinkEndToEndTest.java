package io.fanout.jobs.train;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.HeldOutEdges;
import io.fanout.graph.TypedGraphStore;
import io.fanout.spark.EvaluateResult;
import io.fanout.spark.Fanout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.Checkpoint;
import io.fanout.train.LinkMetrics;
import io.fanout.train.typed.TypedCheckpoint;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
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
 * Link prediction on relation {@code buys} of a generated typed graph, end to end through the
 * public API: {@code prepare --task link --link-relation buys --add-reverse}, {@code sample --task
 * link}, {@code train}, {@code evaluate} and {@code infer --task link --pairs}. Users (long ids)
 * and items (string ids) carry noise features; a user likes two categories, an item is in one, and
 * a user buys items of the categories it likes only: the held-out {@code buys} edges are
 * predictable from the typed two-hop structure alone, and R-GCN ranks them well above their
 * negatives (AUC over 0.8; a model that ignores the structure sits at 0.5).
 */
@Tag("slow")
class TypedLinkEndToEndTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  static final int USERS = 160;
  static final int ITEMS = 144;
  static final int CATS = 12;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("TypedLinkEndToEndTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void rgcnPredictsTheHeldOutLinksOfATypedRelation() throws Exception {
    SplittableRandom r = new SplittableRandom(11);
    StructType userT =
        new StructType()
            .add("id", DataTypes.LongType)
            .add("features", DataTypes.createArrayType(DataTypes.FloatType));
    StructType itemT =
        new StructType()
            .add("id", DataTypes.StringType)
            .add("features", DataTypes.createArrayType(DataTypes.FloatType));
    StructType catT =
        new StructType()
            .add("id", DataTypes.IntegerType)
            .add("features", DataTypes.createArrayType(DataTypes.FloatType));
    List<Row> users = new ArrayList<>();
    List<Row> items = new ArrayList<>();
    List<Row> cats = new ArrayList<>();
    for (int u = 0; u < USERS; u++) {
      users.add(RowFactory.create(1000L + u, noise(r)));
    }
    for (int i = 0; i < ITEMS; i++) {
      items.add(RowFactory.create("item" + i, noise(r)));
    }
    for (int c = 0; c < CATS; c++) {
      List<Float> f = new ArrayList<>();
      for (int k = 0; k < CATS; k++) {
        f.add(k == c ? 1f : 0f);
      }
      cats.add(RowFactory.create(c, f));
    }
    List<Row> buys = new ArrayList<>();
    List<Row> likedBy = new ArrayList<>();
    List<Row> hasItem = new ArrayList<>();
    for (int i = 0; i < ITEMS; i++) {
      hasItem.add(RowFactory.create(i % CATS, "item" + i));
    }
    Set<String> seen = new HashSet<>();
    for (int u = 0; u < USERS; u++) {
      int a = r.nextInt(CATS);
      int b = (a + 1 + r.nextInt(CATS - 1)) % CATS;
      for (int c : new int[] {a, b}) {
        likedBy.add(RowFactory.create(c, 1000L + u));
        for (int k = 0; k < 4; k++) {
          int i = c + CATS * r.nextInt(ITEMS / CATS);
          if (seen.add(u + " " + i)) {
            buys.add(RowFactory.create(1000L + u, "item" + i));
          }
        }
      }
    }
    StructType userItem =
        new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.StringType);
    StructType catUser =
        new StructType().add("src", DataTypes.IntegerType).add("dst", DataTypes.LongType);
    StructType catItem =
        new StructType().add("src", DataTypes.IntegerType).add("dst", DataTypes.StringType);
    Path store = tmp.resolve("store");
    StoreManifest m =
        Fanout.get(spark)
            .prepare()
            .vertices("user", spark.createDataFrame(users, userT))
            .vertices("item", spark.createDataFrame(items, itemT))
            .vertices("cat", spark.createDataFrame(cats, catT))
            .edges("buys", "user", "item", spark.createDataFrame(buys, userItem))
            .edges("liked_by", "cat", "user", spark.createDataFrame(likedBy, catUser))
            .edges("has_item", "cat", "item", spark.createDataFrame(hasItem, catItem))
            .option("add-reverse", "true")
            .option("task", "link")
            .option("link-relation", "buys")
            .option("edge-split", "0.8,0.1,0.1")
            .option("edge-split-seed", "4")
            .output(store.toString())
            .execute()
            .manifest();
    assertThat(m.edgeSplit.removedFrom).containsExactly("buys", "rev_buys");

    Path shards = tmp.resolve("shards");
    Fanout.get(spark)
        .sample(store.toString())
        .output(shards.toString())
        .option("task", "link")
        .option("batch-size", "64")
        .option("fanouts", "*=-1,-1")
        .option("num-negatives", "2")
        .option("epochs", "1")
        .option("seed", "3")
        .execute();
    Path md = tmp.resolve("model");
    Fanout.get(spark)
        .train(store.toString(), shards.toString())
        .option("model-dir", md.toString())
        .option("model", "rgcn")
        .option("hidden", "16")
        .option("dropout", "0")
        .option("lr", "0.01")
        .option("weight-decay", "0")
        .option("feature-norm", "none")
        .option("epochs", "15")
        .option("seed", "1")
        .execute();
    EvaluateResult ev = Fanout.get(spark).evaluate(store.toString(), md.toString()).execute();
    assertThat(ev.task()).isEqualTo("link");
    LinkMetrics test = ev.linkMetrics("test");
    assertThat(test.auc()).as("test AUC %s", ev.toJson()).isGreaterThan(0.8);
    assertThat(test.positives()).isEqualTo(m.edgeSplit.testPairs);

    // hot reuse on the link shards: overlapped refreshes, recorded in the checkpoint, and the
    // held-out links still ranked
    Path reused = tmp.resolve("reused-model");
    Fanout.get(spark)
        .train(store.toString(), shards.toString())
        .option("model-dir", reused.toString())
        .option("model", "rgcn")
        .option("hidden", "16")
        .option("dropout", "0")
        .option("lr", "0.01")
        .option("weight-decay", "0")
        .option("feature-norm", "none")
        .option("epochs", "15")
        .option("seed", "1")
        .option("reuse-hot", "0.3")
        .option("staleness", "2")
        .option("reuse-refresh", "overlapped")
        .execute();
    assertThat(TypedCheckpoint.read(reused, Checkpoint.FILE).checkpoint().meta())
        .containsEntry("identity.reuse_hot", "0.3")
        .containsEntry("identity.reuse_refresh", "overlapped");
    LinkMetrics reusedTest =
        Fanout.get(spark)
            .evaluate(store.toString(), reused.toString())
            .execute()
            .linkMetrics("test");
    assertThat(reusedTest.auc()).as("test AUC with reuse").isGreaterThan(0.8);

    // the test edges as candidate pairs by original ids: their scores give the same AUC
    List<Row> pairs = new ArrayList<>();
    int[] src;
    int[] label;
    try (TypedGraphStore g = TypedGraphStore.open(store, false)) {
      HeldOutEdges h = HeldOutEdges.read(g, "test");
      Map<Integer, Object> userIds = ids(g, g.schema().typeIndex("user"));
      Map<Integer, Object> itemIds = ids(g, g.schema().typeIndex("item"));
      src = Arrays.copyOf(h.src, h.size());
      label = new int[h.size()];
      for (int i = 0; i < h.size(); i++) {
        pairs.add(RowFactory.create(userIds.get(h.src[i]), itemIds.get(h.dst[i])));
        label[i] = h.label[i];
      }
    }
    Path table = tmp.resolve("pairs");
    spark.createDataFrame(pairs, userItem).coalesce(1).write().parquet(table.toString());
    Path out = tmp.resolve("scores");
    Fanout.get(spark)
        .infer(store.toString(), md.toString())
        .pairs(table.toString())
        .output(out.toString())
        .execute();
    List<Row> scored = spark.read().parquet(out.toString()).collectAsList();
    assertThat(scored).hasSize(pairs.size());
    float[] score = new float[scored.size()];
    for (int i = 0; i < scored.size(); i++) {
      // users' ids are longs, items' strings: the output keeps both as strings
      assertThat(scored.get(i).get(0)).isEqualTo(String.valueOf(pairs.get(i).get(0)));
      assertThat(scored.get(i).get(1)).isEqualTo(pairs.get(i).get(1));
      score[i] = scored.get(i).getFloat(2);
    }
    assertThat(auc(src, label, score))
        .isCloseTo(test.auc(), org.assertj.core.api.Assertions.within(1e-6));

    // the embeddings the pairs are scored on: every user and item, under its type
    Path emb = tmp.resolve("emb");
    Fanout.get(spark).infer(store.toString(), md.toString()).embeddings(emb.toString()).execute();
    Dataset<Row> e = spark.read().parquet(emb.toString());
    assertThat(e.columns()).containsExactly("type", "id", "dense_id", "embedding");
    assertThat(e.where("type = 'user'").count()).isEqualTo(USERS);
    assertThat(e.where("type = 'item'").count()).isEqualTo(ITEMS);

    // the mlp decoder, from the same shards
    Path mlp = tmp.resolve("mlp");
    Fanout.get(spark)
        .train(store.toString(), shards.toString())
        .option("model-dir", mlp.toString())
        .option("model", "rgcn")
        .option("decoder", "mlp")
        .option("hidden", "16")
        .option("dropout", "0")
        .option("lr", "0.01")
        .option("weight-decay", "0")
        .option("feature-norm", "none")
        .option("epochs", "15")
        .option("seed", "1")
        .execute();
    EvaluateResult em = Fanout.get(spark).evaluate(store.toString(), mlp.toString()).execute();
    assertThat(em.linkMetrics("test").auc()).as("mlp %s", em.toJson()).isGreaterThan(0.8);

    // validation on link val shards (the val pairs, full neighborhoods): evaluate --checkpoint
    // best reports the val AUC of the best epoch's validation
    Path valShards = tmp.resolve("val-shards");
    Fanout.get(spark)
        .sample(store.toString())
        .output(valShards.toString())
        .option("task", "link")
        .option("split", "val")
        .option("batch-size", "64")
        .option("fanouts", "*=-1,-1")
        .option("seed", "3")
        .execute();
    Path validated = tmp.resolve("validated");
    Fanout.get(spark)
        .train(store.toString(), shards.toString())
        .valShards(valShards.toString())
        .option("model-dir", validated.toString())
        .option("model", "rgcn")
        .option("hidden", "16")
        .option("dropout", "0")
        .option("lr", "0.01")
        .option("weight-decay", "0")
        .option("feature-norm", "none")
        .option("epochs", "4")
        .option("seed", "1")
        .execute();
    double best = Double.NEGATIVE_INFINITY;
    for (String line : java.nio.file.Files.readAllLines(validated.resolve("metrics.jsonl"))) {
      java.util.regex.Matcher v =
          java.util.regex.Pattern.compile("\"val_auc\":([^,}]+)").matcher(line);
      assertThat(v.find()).as(line).isTrue();
      best = Math.max(best, Double.parseDouble(v.group(1)));
    }
    LinkMetrics bestVal =
        Fanout.get(spark)
            .evaluate(store.toString(), validated.toString())
            .option("checkpoint", "best")
            .execute()
            .linkMetrics("val");
    assertThat(bestVal.positives()).isEqualTo(m.edgeSplit.valPairs);
    assertThat(bestVal.auc()).isCloseTo(best, org.assertj.core.api.Assertions.within(1e-12));
  }

  /** The {@link LinkMetrics} AUC of pairs with source {@code src}, label 1 or 0, and score. */
  private static double auc(int[] src, int[] label, float[] score) {
    return LinkMetrics.ofLabelled(label.length, src, score, i -> label[i] == 1).auc();
  }

  private static List<Float> noise(SplittableRandom r) {
    List<Float> f = new ArrayList<>();
    for (int k = 0; k < 4; k++) {
      f.add((float) r.nextGaussian());
    }
    return f;
  }

  private static Map<Integer, Object> ids(TypedGraphStore g, int type) {
    Map<Integer, Object> out = new HashMap<>();
    Dataset<Row> map = spark.read().parquet(g.idMap(type).toString());
    for (Row x : map.collectAsList()) {
      out.put(x.getInt(x.fieldIndex("dense_id")), x.get(x.fieldIndex("id")));
    }
    return out;
  }
}
