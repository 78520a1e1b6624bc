package io.fanout.bench.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A small typed dataset folder in {@code hgb_acm}'s layout ({@code schema.json}, {@code
 * vertices/<type>.parquet}, {@code edges/<relation>.parquet}): users (labelled, the target type)
 * and items in four planted communities spanning both types (user {@code i} and item {@code j} in
 * community {@code i mod 4} and {@code j mod 4}), nine edges in ten inside their community, over
 * {@code follows} (user to user), {@code bought} (user to item) and their declared reverses.
 */
final class TypedCommunityDataset {
  private TypedCommunityDataset() {}

  static final int USERS = 800;
  static final int ITEMS = 400;
  static final int COMMUNITIES = 4;

  static Path write(SparkSession spark, Path dir) throws IOException {
    Random r = new Random(11);
    List<Row> users = new ArrayList<>();
    for (int i = 0; i < USERS; i++) {
      users.add(RowFactory.create(1000L + i, i % COMMUNITIES));
    }
    List<Row> items = new ArrayList<>();
    for (int j = 0; j < ITEMS; j++) {
      items.add(RowFactory.create(5000L + j));
    }
    List<Row> follows = new ArrayList<>();
    List<Row> followed = new ArrayList<>();
    for (int k = 0; k < 3000; k++) {
      int s = r.nextInt(USERS);
      int d = partner(r, s, USERS);
      follows.add(RowFactory.create(1000L + s, 1000L + d));
      followed.add(RowFactory.create(1000L + d, 1000L + s));
    }
    List<Row> bought = new ArrayList<>();
    List<Row> boughtBy = new ArrayList<>();
    for (int k = 0; k < 2000; k++) {
      int s = r.nextInt(USERS);
      int d = partner(r, s, ITEMS);
      bought.add(RowFactory.create(1000L + s, 5000L + d));
      boughtBy.add(RowFactory.create(5000L + d, 1000L + s));
    }
    StructType user =
        new StructType().add("id", DataTypes.LongType).add("label", DataTypes.IntegerType);
    StructType item = new StructType().add("id", DataTypes.LongType);
    StructType edge =
        new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType);
    write(spark, users, user, dir.resolve("vertices/user.parquet"));
    write(spark, items, item, dir.resolve("vertices/item.parquet"));
    write(spark, follows, edge, dir.resolve("edges/follows.parquet"));
    write(spark, followed, edge, dir.resolve("edges/followed_by.parquet"));
    write(spark, bought, edge, dir.resolve("edges/bought.parquet"));
    write(spark, boughtBy, edge, dir.resolve("edges/bought_by.parquet"));
    Files.writeString(
        dir.resolve("schema.json"),
        """
        {"node_types": [
          {"name": "user", "file": "vertices/user.parquet"},
          {"name": "item", "file": "vertices/item.parquet"}],
         "relations": [
          {"name": "follows", "src_type": "user", "dst_type": "user",
           "file": "edges/follows.parquet", "reverse_of": "followed_by"},
          {"name": "followed_by", "src_type": "user", "dst_type": "user",
           "file": "edges/followed_by.parquet", "reverse_of": "follows"},
          {"name": "bought", "src_type": "user", "dst_type": "item",
           "file": "edges/bought.parquet", "reverse_of": "bought_by"},
          {"name": "bought_by", "src_type": "item", "dst_type": "user",
           "file": "edges/bought_by.parquet", "reverse_of": "bought"}],
         "target_type": "user", "label_column": "label", "task": "single-label"}
        """);
    return dir;
  }

  /** A vertex of {@code n} in the community of {@code s} nine times in ten, else any. */
  private static int partner(Random r, int s, int n) {
    if (r.nextInt(10) == 0) {
      return r.nextInt(n);
    }
    return (r.nextInt(n / COMMUNITIES) * COMMUNITIES + s % COMMUNITIES) % n;
  }

  private static void write(SparkSession spark, List<Row> rows, StructType schema, Path path) {
    spark.createDataFrame(rows, schema).coalesce(1).write().parquet(path.toString());
  }
}
