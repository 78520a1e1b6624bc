package io.fanout.jobs.train;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fanout.cli.CliRun;
import io.fanout.testing.SparkTestSession;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code quickstart --dataset DIR} on a typed dataset folder in the layout of {@code hgb_acm}
 * ({@code schema.json}, {@code vertices/<type>.parquet}, {@code edges/<relation>.parquet}): the
 * typed pipeline runs end to end and prints Micro- and Macro-F1. Papers carry noise features; their
 * class is that of their authors, so only a model reading the author relation passes.
 */
@Tag("slow")
class TypedQuickstartTest {
  static SparkSession spark;
  @TempDir static Path tmp;
  static Path dataset;

  @BeforeAll
  static void start() throws Exception {
    spark = SparkTestSession.start("TypedQuickstartTest");
    dataset = tmp.resolve("typed-dataset");
    Random rnd = new Random(7);
    int authors = 40;
    int papers = 160;
    int terms = 12;
    List<Row> authorRows = new ArrayList<>();
    for (int a = 0; a < authors; a++) {
      int cls = a % 2;
      authorRows.add(
          RowFactory.create(
              1000L + a,
              List.of(cls == 0 ? 1f : 0f, cls == 1 ? 1f : 0f, rnd.nextFloat(), rnd.nextFloat())));
    }
    List<Row> paperRows = new ArrayList<>();
    List<Row> writes = new ArrayList<>();
    List<Row> written = new ArrayList<>();
    List<Row> hasTerm = new ArrayList<>();
    List<Row> termOf = new ArrayList<>();
    for (int p = 0; p < papers; p++) {
      int cls = rnd.nextInt(2);
      String split = p < 80 ? "train" : p < 120 ? "val" : "test";
      paperRows.add(
          RowFactory.create(
              (long) p, cls, split, List.of(rnd.nextFloat(), rnd.nextFloat(), rnd.nextFloat())));
      for (int k = 0; k < 2; k++) {
        long a = 1000L + 2 * rnd.nextInt(authors / 2) + cls;
        writes.add(RowFactory.create(a, (long) p));
        written.add(RowFactory.create((long) p, a));
      }
      long t = 5000L + rnd.nextInt(terms);
      hasTerm.add(RowFactory.create((long) p, t));
      termOf.add(RowFactory.create(t, (long) p));
    }
    List<Row> termRows = new ArrayList<>();
    for (int t = 0; t < terms; t++) {
      termRows.add(RowFactory.create(5000L + t));
    }
    StructType paper =
        new StructType()
            .add("id", DataTypes.LongType)
            .add("label", DataTypes.IntegerType)
            .add("split", DataTypes.StringType)
            .add("features", DataTypes.createArrayType(DataTypes.FloatType));
    StructType author =
        new StructType()
            .add("id", DataTypes.LongType)
            .add("features", DataTypes.createArrayType(DataTypes.FloatType));
    StructType term = new StructType().add("id", DataTypes.LongType);
    StructType edge =
        new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType);
    write(paperRows, paper, "vertices/paper.parquet");
    write(authorRows, author, "vertices/author.parquet");
    write(termRows, term, "vertices/term.parquet");
    write(writes, edge, "edges/author_paper.parquet");
    write(written, edge, "edges/paper_author.parquet");
    write(hasTerm, edge, "edges/paper_term.parquet");
    write(termOf, edge, "edges/term_paper.parquet");
    Files.writeString(
        dataset.resolve("schema.json"),
        """
        {"name": "typed-test", "target_type": "paper", "label_column": "label",
         "task": "single-label",
         "node_types": [{"name": "paper", "file": "vertices/paper.parquet"},
                        {"name": "author", "file": "vertices/author.parquet"},
                        {"name": "term", "file": "vertices/term.parquet"}],
         "relations": [
           {"name": "author_paper", "src_type": "author", "dst_type": "paper",
            "file": "edges/author_paper.parquet", "reverse_of": "paper_author"},
           {"name": "paper_author", "src_type": "paper", "dst_type": "author",
            "file": "edges/paper_author.parquet", "reverse_of": "author_paper"},
           {"name": "paper_term", "src_type": "paper", "dst_type": "term",
            "file": "edges/paper_term.parquet", "reverse_of": "term_paper"},
           {"name": "term_paper", "src_type": "term", "dst_type": "paper",
            "file": "edges/term_paper.parquet", "reverse_of": "paper_term"}]}
        """);
  }

  private static void write(List<Row> rows, StructType schema, String file) {
    spark
        .createDataFrame(rows, schema)
        .coalesce(1)
        .write()
        .parquet(dataset.resolve(file).toString());
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void typedDatasetRunsTheTypedPipelineAndPrintsF1() throws Exception {
    Path work = tmp.resolve("work");
    CliRun.Result r =
        CliRun.cli(
            "quickstart",
            "--dataset",
            dataset.toString(),
            "--work-dir",
            work.toString(),
            "--epochs",
            "20");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("test Micro-F1:").contains("[4/4] evaluate");
    JsonNode j = r.json();
    assertThat(j.get("val_micro_f1").asDouble()).isGreaterThanOrEqualTo(0.85);
    assertThat(j.get("test_micro_f1").asDouble()).isGreaterThanOrEqualTo(0.85);
    assertThat(j.get("test_macro_f1").asDouble()).isGreaterThanOrEqualTo(0.85);
    assertThat(work.resolve("store/manifest.json")).exists();

    CliRun.Result link =
        CliRun.cli(
            "quickstart",
            "--dataset",
            dataset.toString(),
            "--work-dir",
            work.toString(),
            "--task",
            "link");
    assertThat(link.code()).isEqualTo(2);
    assertThat(link.err()).contains("node classification only");
  }
}
