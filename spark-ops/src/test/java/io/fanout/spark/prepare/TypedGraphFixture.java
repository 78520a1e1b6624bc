package io.fanout.spark.prepare;

import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A small seeded typed graph of three vertex types and four relations, as tables: {@code paper}
 * (long ids, 3 features, a label and a split), {@code author} (string ids, 2 features, label sets)
 * and {@code term} (int ids, no features); relations {@code cites} (paper to paper, with self-loops
 * and repeats), {@code writes} (author to paper), {@code written_by} (its declared reverse) and
 * {@code has_term} (paper to term). Paper and term ids overlap as numbers: ids are unique per type.
 */
final class TypedGraphFixture {
  static final int PAPERS = 40;
  static final int AUTHORS = 25;
  static final int TERMS = 10;

  static final StructType PAPER =
      new StructType()
          .add("id", DataTypes.LongType)
          .add("features", DataTypes.createArrayType(DataTypes.FloatType))
          .add("label", DataTypes.IntegerType)
          .add("split", DataTypes.StringType);
  static final StructType AUTHOR =
      new StructType()
          .add("id", DataTypes.StringType)
          .add("features", DataTypes.createArrayType(DataTypes.FloatType))
          .add("labels", DataTypes.createArrayType(DataTypes.IntegerType));
  static final StructType TERM = new StructType().add("id", DataTypes.IntegerType);
  static final StructType LONG_EDGES =
      new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType);
  static final StructType AUTHOR_PAPER =
      new StructType().add("src", DataTypes.StringType).add("dst", DataTypes.LongType);
  static final StructType AUTHOR_AUTHOR =
      new StructType().add("src", DataTypes.StringType).add("dst", DataTypes.StringType);
  static final StructType PAPER_AUTHOR =
      new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.StringType);
  static final StructType PAPER_TERM =
      new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.IntegerType);

  final List<Row> papers = new ArrayList<>();
  final List<Row> authors = new ArrayList<>();
  final List<Row> terms = new ArrayList<>();
  final List<Row> cites = new ArrayList<>();
  final List<Row> writes = new ArrayList<>();
  final List<Row> writtenBy = new ArrayList<>();
  final List<Row> hasTerm = new ArrayList<>();

  TypedGraphFixture(long seed) {
    Random rnd = new Random(seed);
    long[] paperIds = ids(rnd, PAPERS);
    for (int i = 0; i < PAPERS; i++) {
      String split = i % 4 == 0 ? "train" : i % 4 == 1 ? "val" : i % 4 == 2 ? "test" : "none";
      papers.add(
          RowFactory.create(
              paperIds[i],
              Arrays.asList(rnd.nextFloat(), rnd.nextFloat(), rnd.nextFloat()),
              i % 5 == 0 ? -1 : rnd.nextInt(3),
              split));
    }
    for (int i = 0; i < AUTHORS; i++) {
      List<Integer> set =
          i % 6 == 0
              ? null
              : i % 6 == 1
                  ? List.of()
                  : List.of(rnd.nextInt(4), rnd.nextInt(4), rnd.nextInt(4)); // repeats dropped
      authors.add(
          RowFactory.create(
              "a" + (AUTHORS - i), Arrays.asList(rnd.nextFloat() * 4, rnd.nextFloat()), set));
    }
    for (int i = 0; i < TERMS; i++) {
      terms.add(RowFactory.create((int) paperIds[i])); // the same numbers as some papers
    }
    for (int k = 0; k < 120; k++) {
      cites.add(RowFactory.create(paperIds[rnd.nextInt(PAPERS)], paperIds[rnd.nextInt(PAPERS)]));
    }
    cites.add(RowFactory.create(paperIds[3], paperIds[3]));
    cites.add(RowFactory.create(paperIds[4], paperIds[5]));
    cites.add(RowFactory.create(paperIds[4], paperIds[5]));
    Set<String> pairs = new LinkedHashSet<>();
    while (pairs.size() < 70) {
      pairs.add(rnd.nextInt(AUTHORS) + " " + rnd.nextInt(PAPERS));
    }
    for (String p : pairs) {
      String[] ab = p.split(" ");
      String author = "a" + (AUTHORS - Integer.parseInt(ab[0]));
      long paper = paperIds[Integer.parseInt(ab[1])];
      writes.add(RowFactory.create(author, paper));
      writtenBy.add(RowFactory.create(paper, author));
    }
    for (int k = 0; k < 60; k++) {
      hasTerm.add(
          RowFactory.create(paperIds[rnd.nextInt(PAPERS)], (int) paperIds[rnd.nextInt(TERMS)]));
    }
  }

  private static long[] ids(Random rnd, int n) {
    Set<Long> s = new LinkedHashSet<>();
    while (s.size() < n) {
      s.add((long) rnd.nextInt(1000));
    }
    return s.stream().mapToLong(Long::longValue).toArray();
  }

  Dataset<Row> papers(SparkSession spark) {
    return spark.createDataFrame(papers, PAPER);
  }

  Dataset<Row> authors(SparkSession spark) {
    return spark.createDataFrame(authors, AUTHOR);
  }

  Dataset<Row> terms(SparkSession spark) {
    return spark.createDataFrame(terms, TERM);
  }

  Dataset<Row> cites(SparkSession spark) {
    return spark.createDataFrame(cites, LONG_EDGES);
  }

  Dataset<Row> writes(SparkSession spark) {
    return spark.createDataFrame(writes, AUTHOR_PAPER);
  }

  Dataset<Row> writtenBy(SparkSession spark) {
    return spark.createDataFrame(writtenBy, PAPER_AUTHOR);
  }

  Dataset<Row> hasTerm(SparkSession spark) {
    return spark.createDataFrame(hasTerm, PAPER_TERM);
  }

  /**
   * A typed prepare of the whole fixture: its three types and four relations ({@code written_by}
   * declared the reverse of {@code writes}), labels from column {@code labels}, missing reverses
   * added.
   */
  PrepareAction prepare(SparkSession spark) {
    return prepare(spark, writes(spark));
  }

  /** As {@link #prepare(SparkSession)}, with {@code writes} as relation {@code writes}'s table. */
  PrepareAction prepare(SparkSession spark, Dataset<Row> writes) {
    return Fanout.get(spark)
        .prepare()
        .vertices("paper", papers(spark))
        .vertices("author", authors(spark))
        .vertices("term", terms(spark))
        .edges("cites", "paper", "paper", cites(spark))
        .edges("writes", "author", "paper", writes)
        .edges("written_by", "paper", "author", writtenBy(spark))
        .reverseOf("written_by", "writes")
        .edges("has_term", "paper", "term", hasTerm(spark))
        .option("labels-column", "labels")
        .option("add-reverse", "true");
  }
}
