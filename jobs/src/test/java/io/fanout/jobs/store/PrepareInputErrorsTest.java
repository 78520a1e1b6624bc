package io.fanout.jobs.store;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.cli.CliRun.Result;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Input tables Spark cannot read make {@code prepare} exit 2 with one line naming the file and what
 * was expected, and publish nothing, instead of exit 1 with Spark's stack trace.
 */
class PrepareInputErrorsTest {
  static SparkSession spark;
  @TempDir static Path tmp;
  static Path vertices;
  static Path edges;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("PrepareInputErrorsTest");
    vertices = tmp.resolve("v.parquet");
    edges = tmp.resolve("e.parquet");
    spark
        .createDataFrame(
            List.of(RowFactory.create(1L, 0), RowFactory.create(2L, 1)),
            new StructType().add("id", DataTypes.LongType).add("label", DataTypes.IntegerType))
        .coalesce(1)
        .write()
        .parquet(vertices.toString());
    spark
        .createDataFrame(
            List.of(RowFactory.create(1L, 2L)),
            new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType))
        .coalesce(1)
        .write()
        .parquet(edges.toString());
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  static Result prepare(Path v, Path e, String... more) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "prepare",
                "--vertices",
                v.toString(),
                "--edges",
                e.toString(),
                "--output",
                tmp.resolve("store").toString()));
    args.addAll(List.of(more));
    return cli(args);
  }

  /** Exit 2, one line "fanout prepare: error: ..." holding every fragment, nothing published. */
  static void refused(Result r, String... fragments) {
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).startsWith("fanout prepare: error: ").doesNotContain("\tat ");
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.err()).contains(fragments);
    assertThat(tmp.resolve("store/manifest.json")).doesNotExist();
  }

  /**
   * As {@link #refused}, for inputs refused by a validation job: its progress line on stderr comes
   * before the one error line.
   */
  static void refusedByValidation(Result r, String... fragments) {
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).doesNotContain("\tat ");
    List<String> lines = r.err().strip().lines().toList();
    String last = lines.get(lines.size() - 1);
    assertThat(last).startsWith("fanout prepare: error: ").contains(fragments);
    assertThat(lines.stream().filter(l -> l.contains("error"))).hasSize(1);
    assertThat(tmp.resolve("store/manifest.json")).doesNotExist();
  }

  static Path copyOf(Path table, String name) throws IOException {
    Path out = tmp.resolve(name);
    Files.createDirectories(out);
    try (var files = Files.list(table)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Files.copy(f, out.resolve(f.getFileName()));
      }
    }
    return out;
  }

  @Test
  void anEmptyParquetFileAmongTheInputs() throws IOException {
    Path v = copyOf(vertices, "with-empty");
    Files.write(v.resolve("part-00009.parquet"), new byte[0]);
    refused(prepare(v, edges), v.toString(), "empty files (0 bytes): part-00009.parquet");
  }

  @Test
  void csvFilesWithoutFormatCsv() throws IOException {
    Path v = Files.writeString(tmp.resolve("v.csv"), "id,label\n1,0\n2,1\n");
    Path e = Files.writeString(tmp.resolve("e.csv"), "src,dst\n1,2\n");
    refused(prepare(v, e), v.toString(), "is CSV, not Parquet", "pass --format csv");
  }

  @Test
  void aFolderMixingParquetWithOtherFiles() throws IOException {
    Path v = copyOf(vertices, "mixed");
    Files.writeString(v.resolve("README.txt"), "the vertices");
    Files.writeString(v.resolve("more.csv"), "id\n3\n");
    assertThat(v.resolve("_SUCCESS")).exists();
    refused(prepare(v, edges), v.toString(), "not Parquet: README.txt, more.csv;");
  }

  @Test
  void aFolderOfFoldersGivenAsATable() throws IOException {
    Path gen = tmp.resolve("gen");
    Files.createDirectories(gen);
    copyOf(vertices, "gen/vertices.parquet");
    copyOf(edges, "gen/edges.parquet");
    refused(
        prepare(gen, edges),
        "vertices folder " + gen,
        "holds folders, not Parquet files: edges.parquet/, vertices.parquet/",
        "pass --vertices " + gen.resolve("vertices.parquet"));
  }

  @Test
  void formatCsvOnParquetFiles() {
    refused(
        prepare(vertices, edges, "--format", "csv"),
        vertices.toString(),
        "holds Parquet files (they start with PAR1), not CSV",
        "drop --format csv");
  }

  @Test
  void csvFeatureListsWithoutQuotesExitTwoNamingTheFileAndRow() throws IOException {
    Path v = Files.writeString(tmp.resolve("unquoted.csv"), "id,features,label\n1,0.1,0.2,3\n");
    Path e = Files.writeString(tmp.resolve("unquoted-e.csv"), "src,dst\n1,1\n");
    refusedByValidation(
        prepare(v, e, "--format", "csv"),
        "unquoted.csv",
        "row '1,0.1,0.2,3' with 4 field(s)",
        "expected exactly 3 fields per row",
        "must be quoted");
  }

  @Test
  void aBigintLabelBeyondTheClassLimitExitsTwoNamingTheRowAndValue() {
    Path v = tmp.resolve("wide-labels.parquet");
    spark
        .createDataFrame(
            List.of(RowFactory.create(1L, 0L), RowFactory.create(2L, 3_000_000_000L)),
            new StructType().add("id", DataTypes.LongType).add("label", DataTypes.LongType))
        .coalesce(1)
        .write()
        .parquet(v.toString());
    refusedByValidation(
        prepare(v, edges),
        v.toString(),
        "column 'label'",
        "a label above 16777215",
        "\"label\":3000000000");
  }
}
