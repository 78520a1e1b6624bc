package io.fanout.spark.prepare;

import io.fanout.store.ParquetFooters;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * Writes one held-out edge list, {@code edgesplit/<split>.parquet}: rows {@code (src_dense int32,
 * dst_dense int32, src, dst, label int32)} with {@code src}/{@code dst} of the original id type (of
 * the relation's source and destination type in a typed store, whose dense ids are type-local).
 * Like {@link IdMapFileWriter}, straight through parquet-hadoop with a canonical footer, so the
 * same rows give the same bytes.
 */
final class EdgeListFileWriter implements AutoCloseable {
  static final String SRC_DENSE = "src_dense";
  static final String DST_DENSE = "dst_dense";
  static final String SRC = "src";
  static final String DST = "dst";
  static final String LABEL = "label";

  private final Path file;
  private final ParquetWriter<Group> writer;
  private final SimpleGroupFactory rows;
  private final String srcIdType;
  private final String dstIdType;

  /**
   * @param idType {@code long}, {@code int} or {@code string}
   */
  EdgeListFileWriter(Path file, String idType) {
    this(file, idType, idType);
  }

  /**
   * An edge list whose endpoints have different id types (a relation between two vertex types).
   *
   * @param srcIdType {@code long}, {@code int} or {@code string}: the type of column {@code src}
   * @param dstIdType the same for column {@code dst}
   */
  EdgeListFileWriter(Path file, String srcIdType, String dstIdType) {
    this.file = file;
    this.srcIdType = srcIdType;
    this.dstIdType = dstIdType;
    Types.MessageTypeBuilder b = Types.buildMessage();
    b.required(PrimitiveTypeName.INT32).named(SRC_DENSE);
    b.required(PrimitiveTypeName.INT32).named(DST_DENSE);
    for (String c : new String[] {SRC, DST}) {
      switch (c.equals(SRC) ? srcIdType : dstIdType) {
        case "long" -> b.required(PrimitiveTypeName.INT64).named(c);
        case "int" -> b.required(PrimitiveTypeName.INT32).named(c);
        default ->
            b.required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named(c);
      }
    }
    b.required(PrimitiveTypeName.INT32).named(LABEL);
    MessageType schema = b.named("edge_list");
    this.rows = new SimpleGroupFactory(schema);
    try {
      Files.createDirectories(file.getParent());
      writer =
          ExampleParquetWriter.builder(new LocalOutputFile(file))
              .withConf(new PlainParquetConfiguration())
              .withType(schema)
              .withCompressionCodec(CompressionCodecName.SNAPPY)
              .withDictionaryEncoding(false) // see IdMapFileWriter
              .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
              .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
              .build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + file, e);
    }
  }

  void write(int srcDense, int dstDense, Object src, Object dst, int label) {
    Group g = rows.newGroup();
    g.add(SRC_DENSE, srcDense);
    g.add(DST_DENSE, dstDense);
    add(g, SRC, srcIdType, src);
    add(g, DST, dstIdType, dst);
    g.add(LABEL, label);
    try {
      writer.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void add(Group g, String column, String idType, Object id) {
    switch (idType) {
      case "long" -> g.add(column, (Long) id);
      case "int" -> g.add(column, (Integer) id);
      default -> g.add(column, (String) id);
    }
  }

  @Override
  public void close() {
    try {
      writer.close();
      ParquetFooters.canonicalize(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
