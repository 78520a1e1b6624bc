package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.InvalidInputException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Input files Spark cannot read are refused on the driver, by name, before Spark reads any. */
class InputFilesTest {
  @TempDir Path tmp;

  /** The shape of a Parquet file as far as the check looks: PAR1, a footer length, PAR1. */
  static final byte[] PARQUET = "PAR1\0\0\0\0\0\0\0\0PAR1".getBytes(StandardCharsets.US_ASCII);

  Path file(String rel, byte[] bytes) throws IOException {
    Path f = tmp.resolve(rel);
    Files.createDirectories(f.getParent());
    return Files.write(f, bytes);
  }

  Path file(String rel, String text) throws IOException {
    return file(rel, text.getBytes(StandardCharsets.UTF_8));
  }

  static InputFiles check(Path p, boolean csv) {
    return InputFiles.check(new Configuration(), p.toString(), "vertices", csv);
  }

  static AbstractThrowableAssert<?, ? extends Throwable> refused(Path p, boolean csv) {
    return assertThatThrownBy(() -> check(p, csv))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageNotContaining("\n")
        .hasMessageContaining(p.toString());
  }

  @Test
  void aSparkWrittenFolderIsReadSkippingMarkersAndHiddenFiles() throws IOException {
    file("v/part-00000.parquet", PARQUET);
    file("v/part-00001.parquet", PARQUET);
    file("v/_SUCCESS", "");
    file("v/.hidden", "not read");
    file("v/_temporary/0/part-9.parquet", "half written");
    file("v/year=2024/part-00002.parquet", PARQUET);
    InputFiles f = check(tmp.resolve("v"), false);
    // every file is in the fingerprint, as before: path, size, mtime, sorted
    assertThat(f.digest.split("\n")).hasSize(6);
    assertThat(f.digest).contains("_SUCCESS\t0\t").endsWith("\n");
  }

  @Test
  void anEmptyParquetFileIsRefusedByName() throws IOException {
    refused(file("v.parquet", new byte[0]), false).hasMessageContaining("is empty (0 bytes)");
    file("t/part-0.parquet", PARQUET);
    file("t/part-1.parquet", new byte[0]);
    refused(tmp.resolve("t"), false)
        .hasMessageContaining("holds empty files (0 bytes): part-1.parquet;")
        .hasMessageNotContaining("part-0");
  }

  @Test
  void aTruncatedParquetFileIsRefused() throws IOException {
    byte[] cut = new byte[40];
    System.arraycopy(PARQUET, 0, cut, 0, 4);
    refused(file("cut.parquet", cut), false)
        .hasMessageContaining("not a complete Parquet file")
        .hasMessageContaining("truncated");
  }

  @Test
  void csvWithoutFormatCsvSuggestsIt() throws IOException {
    refused(file("v.csv", "id,label\n1,0\n"), false)
        .hasMessageContaining("is CSV, not Parquet")
        .hasMessageContaining("pass --format csv");
    refused(file("v.dat", "id,label\n1,0\n"), false)
        .hasMessageContaining("is not Parquet (it does not start with PAR1)")
        .hasMessageContaining("if it is CSV, pass --format csv");
    file("c/a.csv", "id\n1\n");
    file("c/b.csv", "id\n2\n");
    refused(tmp.resolve("c"), false)
        .hasMessageContaining("holds CSV files, not Parquet: a.csv, b.csv")
        .hasMessageContaining("pass --format csv");
  }

  @Test
  void aFolderMixingParquetWithOtherFilesNamesThem() throws IOException {
    file("m/part-00000.parquet", PARQUET);
    file("m/README.txt", "about this table");
    file("m/extra.csv", "id\n1\n");
    file("m/_SUCCESS", "");
    refused(tmp.resolve("m"), false)
        .hasMessageContaining("holds files that are not Parquet: README.txt, extra.csv;")
        .hasMessageContaining("names starting with '.' or '_' are skipped")
        .hasMessageNotContaining("_SUCCESS");
  }

  @Test
  void aFolderOfFoldersSaysWhatWasFoundAndSuggestsTheTables() throws IOException {
    file("gen/vertices.parquet/part-0.parquet", PARQUET);
    file("gen/edges.parquet/part-0.parquet", PARQUET);
    refused(tmp.resolve("gen"), false)
        .hasMessageContaining("holds folders, not Parquet files: edges.parquet/, vertices.parquet/")
        .hasMessageContaining("expected a Parquet file or a folder of them")
        .hasMessageContaining(
            "pass --vertices "
                + tmp.resolve("gen/vertices.parquet")
                + " --edges "
                + tmp.resolve("gen/edges.parquet"));
    file("part/year=2024/extra/part-0.parquet", PARQUET);
    refused(tmp.resolve("part"), false)
        .hasMessageContaining("holds folders, not Parquet files: year=2024/;");
    file("nested/a/part-0.parquet", PARQUET);
    refused(tmp.resolve("nested"), false)
        .hasMessageContaining("holds folders, not Parquet files: a/;")
        .hasMessageNotContaining("pass --");
  }

  @Test
  void aFolderWithNothingToReadIsRefused() throws IOException {
    file("only/_SUCCESS", "");
    refused(tmp.resolve("only"), false)
        .hasMessageContaining("holds no Parquet files (skipped, as Spark does: _SUCCESS)");
  }

  @Test
  void formatCsvOnParquetSaysItIsParquet() throws IOException {
    refused(file("v.parquet", PARQUET), true)
        .hasMessageContaining("is Parquet (it starts with PAR1), not CSV")
        .hasMessageContaining("drop --format csv");
    file("p/part-0.parquet", PARQUET);
    file("p/_SUCCESS", "");
    refused(tmp.resolve("p"), true)
        .hasMessageContaining(
            "holds Parquet files (they start with PAR1), not CSV: part-0.parquet");
    // CSV files, empty ones included, pass
    file("ok/a.csv", "id\n1\n");
    file("ok/b.csv", "");
    check(tmp.resolve("ok"), true);
  }

  @Test
  void manyOffendingFilesAreCountedNotAllListed() throws IOException {
    file("many/part-0.parquet", PARQUET);
    for (int i = 0; i < 8; i++) {
      file("many/note-" + i + ".txt", "x");
    }
    refused(tmp.resolve("many"), false)
        .hasMessageContaining(
            "note-0.txt, note-1.txt, note-2.txt, note-3.txt, note-4.txt and 3 more");
  }
}
