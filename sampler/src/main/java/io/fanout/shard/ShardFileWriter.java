package io.fanout.shard;

import io.fanout.store.ParquetFooters;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;

/**
 * Writes one shard file: Parquet, one row per mini-batch, schema {@link ShardSchema#SCHEMA} (or
 * {@link ShardSchema#LINK_SCHEMA} when the metadata says {@code fanout.task=link}).
 *
 * <p>Written straight through parquet-hadoop to a local path, without Spark's writer, so the file
 * name and bytes depend only on the rows: the same batches give a byte-identical file. Dictionary
 * encoding is off (array blobs never repeat). Buffered data is bounded by about one row group (128
 * MB) plus one row, whatever the row size.
 */
public final class ShardFileWriter implements AutoCloseable {
  private final Path file;
  private final ParquetWriter<Group> writer;
  private final SimpleGroupFactory rows;
  private final boolean typed;
  private long rowsWritten;

  /**
   * @param codec compression of the pages ({@code uncompressed}, {@code snappy} or {@code zstd})
   */
  public ShardFileWriter(Path file, CompressionCodecName codec, Map<String, String> metadata) {
    this.file = file;
    MessageType schema = ShardSchema.schemaFor(metadata);
    this.rows = new SimpleGroupFactory(schema);
    this.typed = ShardSchema.typed(metadata);
    try {
      writer =
          ExampleParquetWriter.builder(new LocalOutputFile(file))
              .withConf(new PlainParquetConfiguration())
              .withType(schema)
              .withCompressionCodec(codec)
              .withDictionaryEncoding(false)
              .withWriterVersion(ParquetProperties.WriterVersion.PARQUET_1_0)
              .withPageWriteChecksumEnabled(true)
              // Rows can be hundreds of MB (inline features): check the row group's size after
              // every row, not after parquet's default 100, so at most about one row group of
              // rows is buffered.
              .withMinRowCountForPageSizeCheck(1)
              .withWriteMode(ParquetFileWriter.Mode.CREATE)
              .withExtraMetaData(metadata)
              .build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create shard file " + file, e);
    }
  }

  public void write(EncodedBatch b) {
    if (typed) {
      throw new IllegalStateException(file + " is a typed shard file; write typed rows to it");
    }
    Group g = rows.newGroup();
    g.add(ShardSchema.EPOCH, b.epoch());
    g.add(ShardSchema.BATCH, b.batch());
    g.add(ShardSchema.NUM_SEEDS, b.numSeeds());
    g.add(ShardSchema.LAYER_SIZES, Binary.fromConstantByteArray(b.layerSizes()));
    g.add(ShardSchema.NODES, Binary.fromConstantByteArray(b.nodes()));
    g.add(ShardSchema.INDPTR, Binary.fromConstantByteArray(b.indptr()));
    g.add(ShardSchema.INDICES, Binary.fromConstantByteArray(b.indices()));
    g.add(ShardSchema.LABELS, Binary.fromConstantByteArray(b.labels()));
    if (b.features() != null) {
      g.add(ShardSchema.FEATURES, Binary.fromConstantByteArray(b.features()));
    }
    if (b.pairs() != null) {
      g.add(ShardSchema.PAIRS, Binary.fromConstantByteArray(b.pairs()));
    }
    try {
      writer.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rowsWritten++;
  }

  /** Writes a typed row; the file's metadata must say {@code fanout.kind=typed}. */
  public void write(EncodedTypedBatch b) {
    if (!typed) {
      throw new IllegalStateException(
          file + " is a one-type shard file; typed rows need typed metadata");
    }
    Group g = rows.newGroup();
    g.add(ShardSchema.EPOCH, b.epoch());
    g.add(ShardSchema.BATCH, b.batch());
    g.add(ShardSchema.NUM_SEEDS, b.numSeeds());
    g.add(ShardSchema.SEED_TYPE, b.seedType());
    g.add(ShardSchema.LAYER_SIZES, Binary.fromConstantByteArray(b.layerSizes()));
    g.add(ShardSchema.NODES, Binary.fromConstantByteArray(b.nodes()));
    g.add(ShardSchema.INDPTR, Binary.fromConstantByteArray(b.indptr()));
    g.add(ShardSchema.INDICES, Binary.fromConstantByteArray(b.indices()));
    g.add(ShardSchema.LABELS, Binary.fromConstantByteArray(b.labels()));
    if (b.labelPtr() != null) {
      g.add(ShardSchema.LABEL_PTR, Binary.fromConstantByteArray(b.labelPtr()));
      g.add(ShardSchema.LABEL_IDS, Binary.fromConstantByteArray(b.labelIds()));
    }
    if (b.pairs() != null) {
      g.add(ShardSchema.PAIRS, Binary.fromConstantByteArray(b.pairs()));
    }
    if (b.features() != null) {
      g.add(ShardSchema.FEATURES, Binary.fromConstantByteArray(b.features()));
    }
    try {
      writer.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    rowsWritten++;
  }

  public long rowsWritten() {
    return rowsWritten;
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
