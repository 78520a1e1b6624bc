package io.fanout.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.Encoding;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.Util;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ParquetFootersTest {
  @TempDir Path dir;

  private static final MessageType SCHEMA =
      MessageTypeParser.parseMessageType(
          "message t { required int32 a; optional binary b; repeated int64 c; }");

  private static void write(Path file) throws Exception {
    SimpleGroupFactory f = new SimpleGroupFactory(SCHEMA);
    try (ParquetWriter<Group> w =
        ExampleParquetWriter.builder(new LocalOutputFile(file))
            .withConf(new PlainParquetConfiguration())
            .withType(SCHEMA)
            .withDictionaryEncoding(false)
            .build()) {
      for (int i = 0; i < 100; i++) {
        Group g = f.newGroup().append("a", i);
        if (i % 3 != 0) {
          g.append("b", "v" + i);
        }
        for (int j = 0; j < i % 4; j++) {
          g.append("c", (long) i * j);
        }
        w.write(g);
      }
    }
  }

  private static FileMetaData footer(byte[] file) throws Exception {
    ByteBuffer b = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
    int len = b.getInt(file.length - 8);
    return Util.readFileMetaData(
        new ByteArrayInputStream(Arrays.copyOfRange(file, file.length - 8 - len, file.length - 8)));
  }

  /** The same file with every encoding list reversed, as another JVM's hash order may give it. */
  private static byte[] withReversedEncodings(byte[] file) throws Exception {
    FileMetaData meta = footer(file);
    for (RowGroup g : meta.getRow_groups()) {
      for (ColumnChunk c : g.getColumns()) {
        List<Encoding> e = new ArrayList<>(c.getMeta_data().getEncodings());
        Collections.reverse(e);
        c.getMeta_data().setEncodings(e);
      }
    }
    int len = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).getInt(file.length - 8);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(file, 0, file.length - 8 - len);
    ByteArrayOutputStream f = new ByteArrayOutputStream();
    Util.writeFileMetaData(meta, f);
    out.write(f.toByteArray());
    out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(f.size()).array());
    out.write(new byte[] {'P', 'A', 'R', '1'});
    return out.toByteArray();
  }

  @Test
  void encodingOrderNoLongerDependsOnTheWriter() throws Exception {
    Path a = dir.resolve("a.parquet");
    write(a);
    ParquetFooters.canonicalize(a);
    byte[] canonical = Files.readAllBytes(a);
    byte[] shuffled = withReversedEncodings(canonical);
    boolean multi = false;
    for (RowGroup g : footer(canonical).getRow_groups()) {
      for (ColumnChunk c : g.getColumns()) {
        multi |= c.getMeta_data().getEncodings().size() > 1;
      }
    }
    assertThat(multi).as("some column lists several encodings").isTrue();
    assertThat(shuffled).isNotEqualTo(canonical);

    Path b = dir.resolve("b.parquet");
    Files.write(b, shuffled);
    ParquetFooters.canonicalize(b);
    assertThat(Files.readAllBytes(b)).isEqualTo(canonical);
    ParquetFooters.canonicalize(b);
    assertThat(Files.readAllBytes(b)).isEqualTo(canonical);
  }

  @Test
  void notParquetIsAClearError() throws Exception {
    Path junk = dir.resolve("junk.bin");
    Files.write(junk, new byte[64]);
    assertThatThrownBy(() -> ParquetFooters.canonicalize(junk))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(junk.toString());
  }
}
