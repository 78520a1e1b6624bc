package io.fanout.spark.prepare;

import io.fanout.store.ParquetFooters;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 * Writes one {@code idmap/part-NNNNN.parquet} file, {@code (dense_id int32, id <original type>)},
 * plus {@code part int32} when the store was partitioned by a graph partitioner, straight through
 * parquet-hadoop from the task that owns the partition: its bytes depend only on the rows (Spark's
 * own writer stamps run-specific metadata), and its name on the partition.
 */
final class IdMapFileWriter implements AutoCloseable {
  static final String DENSE_ID = "dense_id";
  static final String ID = "id";
  static final String PART = "part";

  private final Path file;
  private final ParquetWriter<Group> writer;
  private final SimpleGroupFactory rows;
  private final int part;

  /**
   * @param idType {@code long}, {@code int} or {@code string}
   * @param part the partition written in every row's {@code part} column; -1: no such column
   */
  IdMapFileWriter(Path file, String idType, int part) {
    this.file = file;
    this.part = part;
    MessageType schema = schema(idType, part >= 0);
    this.rows = new SimpleGroupFactory(schema);
    try {
      writer =
          ExampleParquetWriter.builder(new LocalOutputFile(file))
              .withConf(new PlainParquetConfiguration())
              .withType(schema)
              .withCompressionCodec(CompressionCodecName.SNAPPY)
              // parquet-mr lists a column's encodings from a HashSet of enum constants, whose
              // order varies between JVMs; one encoding (plain) keeps the footer identical
              .withDictionaryEncoding(false)
              .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
              .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
              .build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + file, e);
    }
  }

  static MessageType schema(String idType, boolean withPart) {
    Types.MessageTypeBuilder b = Types.buildMessage();
    b.required(PrimitiveTypeName.INT32).named(DENSE_ID);
    switch (idType) {
      case "long":
        b.required(PrimitiveTypeName.INT64).named(ID);
        break;
      case "int":
        b.required(PrimitiveTypeName.INT32).named(ID);
        break;
      default:
        b.required(PrimitiveTypeName.BINARY).as(LogicalTypeAnnotation.stringType()).named(ID);
    }
    if (withPart) {
      b.required(PrimitiveTypeName.INT32).named(PART);
    }
    return b.named("idmap");
  }

  /** Writes a row of a {@code long} id map. */
  void write(int denseId, long id) {
    Group g = rows.newGroup();
    g.add(DENSE_ID, denseId);
    g.add(ID, id);
    write(g);
  }

  /** Writes a row of an {@code int} id map. */
  void write(int denseId, int id) {
    Group g = rows.newGroup();
    g.add(DENSE_ID, denseId);
    g.add(ID, id);
    write(g);
  }

  /** Writes a row of a {@code string} id map. */
  void write(int denseId, String id) {
    Group g = rows.newGroup();
    g.add(DENSE_ID, denseId);
    g.add(ID, id);
    write(g);
  }

  private void write(Group g) {
    if (part >= 0) {
      g.add(PART, part);
    }
    try {
      writer.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
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
