package io.fanout.bench.sample;

import io.fanout.sample.MiniBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.api.RecordConsumer;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * The rejected shard encoding, kept for the benchmark: the same batch arrays as nested Parquet
 * {@code LIST<int32>} columns (what Spark writes for {@code array<int>}), written through a
 * RecordConsumer as Spark's writer does, one value at a time with repetition levels.
 */
final class ListShardWriter implements AutoCloseable {
  static final String[] COLUMNS = {"layer_sizes", "nodes", "indptr", "indices", "labels"};

  static final MessageType SCHEMA;

  static {
    Types.MessageTypeBuilder b = Types.buildMessage();
    b.required(PrimitiveTypeName.INT32).named("epoch");
    b.required(PrimitiveTypeName.INT32).named("batch");
    for (String c : COLUMNS) {
      b.requiredGroup()
          .as(LogicalTypeAnnotation.listType())
          .repeatedGroup()
          .required(PrimitiveTypeName.INT32)
          .named("element")
          .named("list")
          .named(c);
    }
    SCHEMA = b.named("fanout_minibatch_lists");
  }

  private final ParquetWriter<MiniBatch> writer;

  ListShardWriter(Path file, CompressionCodecName codec) {
    try {
      writer =
          new Builder(new LocalOutputFile(file))
              .withConf(new PlainParquetConfiguration())
              .withCompressionCodec(codec)
              .withDictionaryEncoding(false)
              .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
              .withWriteMode(ParquetFileWriter.Mode.OVERWRITE)
              .build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void write(MiniBatch b) {
    try {
      writer.write(b);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    try {
      writer.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static final class Builder extends ParquetWriter.Builder<MiniBatch, Builder> {
    Builder(OutputFile file) {
      super(file);
    }

    @Override
    protected Builder self() {
      return this;
    }

    @Override
    protected WriteSupport<MiniBatch> getWriteSupport(ParquetConfiguration conf) {
      return new Support();
    }

    @Override
    protected WriteSupport<MiniBatch> getWriteSupport(org.apache.hadoop.conf.Configuration conf) {
      return new Support();
    }
  }

  private static final class Support extends WriteSupport<MiniBatch> {
    private RecordConsumer rc;

    @Override
    public WriteContext init(ParquetConfiguration conf) {
      return new WriteContext(SCHEMA, new HashMap<>());
    }

    @Override
    public WriteContext init(org.apache.hadoop.conf.Configuration conf) {
      return new WriteContext(SCHEMA, new HashMap<>());
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
      rc = recordConsumer;
    }

    @Override
    public void write(MiniBatch b) {
      rc.startMessage();
      rc.startField("epoch", 0);
      rc.addInteger(b.epoch());
      rc.endField("epoch", 0);
      rc.startField("batch", 1);
      rc.addInteger(b.batch());
      rc.endField("batch", 1);
      list(2, b.layerSizes(), null);
      list(3, b.nodes(), null);
      int[][] ptr = new int[b.layers()][];
      int[][] ix = new int[b.layers()][];
      for (int h = 1; h <= b.layers(); h++) {
        ptr[h - 1] = b.indptr(h);
        ix[h - 1] = b.indices(h);
      }
      list(4, null, ptr);
      list(5, null, ix);
      list(6, b.labels(), null);
      rc.endMessage();
    }

    private void list(int index, int[] values, int[][] parts) {
      String name = COLUMNS[index - 2];
      rc.startField(name, index);
      rc.startGroup();
      boolean any = values != null ? values.length > 0 : total(parts) > 0;
      if (any) {
        rc.startField("list", 0);
        if (values != null) {
          elements(values);
        } else {
          for (int[] p : parts) {
            elements(p);
          }
        }
        rc.endField("list", 0);
      }
      rc.endGroup();
      rc.endField(name, index);
    }

    private static long total(int[][] parts) {
      long n = 0;
      for (int[] p : parts) {
        n += p.length;
      }
      return n;
    }

    private void elements(int[] values) {
      for (int v : values) {
        rc.startGroup();
        rc.startField("element", 0);
        rc.addInteger(v);
        rc.endField("element", 0);
        rc.endGroup();
      }
    }
  }
}
