package io.fanout.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreManifest;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link HeldOutEdges#read(Path)} and {@link HeldOutEdges#count} against a row-by-row read of the
 * same held-out edge list, over files of several row groups and pages.
 */
class HeldOutEdgesTest {
  @TempDir Path dir;

  /** The layout prepare writes ({@code EdgeListFileWriter}), with long original ids. */
  static final MessageType EDGE_LIST =
      MessageTypeParser.parseMessageType(
          "message edge_list { required int32 src_dense; required int32 dst_dense;"
              + " required int64 src; required int64 dst; required int32 label; }");

  /** {@code positives} pairs of label 1 then {@code negatives} of label 0, in small row groups. */
  static Path write(Path file, MessageType schema, int positives, int negatives, long seed)
      throws Exception {
    Random r = new Random(seed);
    SimpleGroupFactory f = new SimpleGroupFactory(schema);
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(file))
            .withConf(new PlainParquetConfiguration())
            .withType(schema)
            .withDictionaryEncoding(false)
            .withRowGroupSize(4096L)
            .withPageSize(512)
            .withPageRowCountLimit(37)
            .withMinRowCountForPageSizeCheck(5)
            .withMaxRowCountForPageSizeCheck(20)
            .build()) {
      for (int i = 0; i < positives + negatives; i++) {
        int s = r.nextInt(1 << 20);
        int d = r.nextInt(1 << 20);
        Group g = f.newGroup();
        for (String c : new String[] {"src_dense", "dst_dense", "src", "dst", "label"}) {
          if (!schema.containsField(c)) {
            continue;
          }
          switch (c) {
            case "src_dense" -> g.add(c, s);
            case "dst_dense" -> g.add(c, d);
            case "src" -> g.add(c, 7L * s);
            case "dst" -> g.add(c, 7L * d);
            default -> g.add(c, i < positives ? 1 : 0);
          }
        }
        w.write(g);
      }
    }
    return file;
  }

  /** The file read row by row through whole records, as the reader once did. */
  static HeldOutEdges recordByRecord(Path file) throws Exception {
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      MessageType schema = r.getFooter().getFileMetaData().getSchema();
      int n = (int) r.getRecordCount();
      int[] src = new int[n];
      int[] dst = new int[n];
      byte[] label = new byte[n];
      int i = 0;
      var pages = r.readNextRowGroup();
      for (; pages != null; pages = r.readNextRowGroup()) {
        RecordReader<Group> rr =
            new ColumnIOFactory()
                .getColumnIO(schema)
                .getRecordReader(pages, new GroupRecordConverter(schema));
        for (long k = 0; k < pages.getRowCount(); k++, i++) {
          Group g = rr.read();
          src[i] = g.getInteger("src_dense", 0);
          dst[i] = g.getInteger("dst_dense", 0);
          label[i] = (byte) g.getInteger("label", 0);
        }
      }
      assertThat(i).isEqualTo(n);
      return HeldOutEdges.of(src, dst, label);
    }
  }

  static StoreManifest.EdgeSplit entry(long valPairs, long valNegatives) {
    StoreManifest.EdgeSplit e = new StoreManifest.EdgeSplit();
    e.valPairs = valPairs;
    e.valNegatives = valNegatives;
    e.testPairs = 1; // another split's counts, never read for val
    e.testNegatives = 2;
    return e;
  }

  @Test
  void theColumnReadGivesWhatARecordReadGives() throws Exception {
    Path file = write(dir.resolve("val.parquet"), EDGE_LIST, 1234, 2345, 3);
    try (ParquetFileReader r = ParquetFileReader.open(new LocalInputFile(file))) {
      assertThat(r.getRowGroups()).as("row groups").hasSizeGreaterThan(3);
    }
    HeldOutEdges want = recordByRecord(file);
    HeldOutEdges got = HeldOutEdges.read(file);
    assertThat(got.size()).isEqualTo(1234 + 2345);
    assertThat(got.src).isEqualTo(want.src);
    assertThat(got.dst).isEqualTo(want.dst);
    assertThat(got.label).isEqualTo(want.label);
    assertThat(got.positives()).isEqualTo(1234);
  }

  @Test
  void theCountsAreThoseOfTheReadPairs() throws Exception {
    Path file = write(dir.resolve("val.parquet"), EDGE_LIST, 701, 1300, 4);
    HeldOutEdges h = HeldOutEdges.read(file);
    HeldOutCount want = new HeldOutCount(h.size(), h.positives());
    assertThat(want).isEqualTo(new HeldOutCount(2001, 701)).isEqualTo(HeldOutCount.of(h));
    assertThat(HeldOutEdges.count(file)).isEqualTo(want);
    // the manifest's counts, when they add up to the file's rows
    assertThat(HeldOutEdges.count(file, entry(701, 1300), "val")).isEqualTo(want);
    // a manifest without them (read as 0), or with counts the file does not hold: from the file
    assertThat(HeldOutEdges.count(file, entry(0, 0), "val")).isEqualTo(want);
    assertThat(HeldOutEdges.count(file, entry(701, 0), "val")).isEqualTo(want);
    assertThat(HeldOutEdges.count(file, entry(700, 1300), "val")).isEqualTo(want);
    assertThatThrownBy(() -> HeldOutEdges.count(file, entry(701, 1300), "train"))
        .hasMessageContaining("expected val or test");
  }

  @Test
  void anEmptySplitCountsNothing() throws Exception {
    Path file = write(dir.resolve("test.parquet"), EDGE_LIST, 0, 0, 5);
    assertThat(HeldOutEdges.read(file).size()).isZero();
    assertThat(HeldOutEdges.count(file)).isEqualTo(new HeldOutCount(0, 0));
    StoreManifest.EdgeSplit none = new StoreManifest.EdgeSplit();
    assertThat(HeldOutEdges.count(file, none, "test")).isEqualTo(new HeldOutCount(0, 0));
  }

  @Test
  void aFileWithoutAnIntLabelColumnIsRefusedByName() throws Exception {
    MessageType noLabel =
        MessageTypeParser.parseMessageType(
            "message edge_list { required int32 src_dense; required int32 dst_dense; }");
    Path file = write(dir.resolve("a.parquet"), noLabel, 3, 3, 6);
    for (Runnable read :
        Arrays.<Runnable>asList(
            () -> HeldOutEdges.read(file),
            () -> HeldOutEdges.count(file),
            () -> HeldOutEdges.count(file, entry(0, 0), "val"))) {
      assertThatThrownBy(read::run)
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("int32 column 'label'");
    }
    MessageType longLabel =
        MessageTypeParser.parseMessageType(
            "message edge_list { required int32 src_dense; required int32 dst_dense;"
                + " required int64 label; }");
    Path other = dir.resolve("b.parquet");
    SimpleGroupFactory f = new SimpleGroupFactory(longLabel);
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(other))
            .withConf(new PlainParquetConfiguration())
            .withType(longLabel)
            .build()) {
      w.write(f.newGroup().append("src_dense", 1).append("dst_dense", 2).append("label", 1L));
    }
    assertThatThrownBy(() -> HeldOutEdges.read(other))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("int32 column 'label'");
  }
}
