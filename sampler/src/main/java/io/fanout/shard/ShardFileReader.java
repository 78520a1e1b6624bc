package io.fanout.shard;

import io.fanout.store.InvalidInputException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;

/**
 * Reads the rows of one shard file in order, without Spark. Checks that the file's schema has every
 * shard column; fails naming the file otherwise.
 */
public final class ShardFileReader implements Iterator<EncodedBatch>, AutoCloseable {
  private final Path file;
  private final ParquetFileReader reader;
  private final MessageColumnIO columnIo;
  private final MessageType schema;
  private final boolean hasFeatures;
  private RecordReader<Group> rows;
  private long rowsLeftInGroup;

  public ShardFileReader(Path file) {
    this.file = file;
    try {
      reader = ParquetFileReader.open(new LocalInputFile(file));
    } catch (IOException e) {
      if (java.nio.file.Files.exists(file)) {
        throw new InvalidInputException(
            "cannot read shard file " + file + ": " + e.getMessage() + "; expected a Parquet shard",
            e);
      }
      throw new InvalidInputException(
          "shard file "
              + file
              + " is gone: its shard directory was replaced (sample --overwrite) or removed while"
              + " this run read it; run again on the current shards",
          e);
    } catch (RuntimeException e) {
      throw new InvalidInputException(
          "cannot read shard file " + file + ": " + e.getMessage() + "; expected a Parquet shard",
          e);
    }
    schema = reader.getFooter().getFileMetaData().getSchema();
    for (String c :
        new String[] {
          ShardSchema.EPOCH,
          ShardSchema.BATCH,
          ShardSchema.NUM_SEEDS,
          ShardSchema.LAYER_SIZES,
          ShardSchema.NODES,
          ShardSchema.INDPTR,
          ShardSchema.INDICES,
          ShardSchema.LABELS
        }) {
      if (!schema.containsField(c)) {
        close();
        throw new InvalidInputException(
            "shard file "
                + file
                + " has no column '"
                + c
                + "'; expected the schema "
                + ShardSchema.SCHEMA);
      }
    }
    hasFeatures = schema.containsField(ShardSchema.FEATURES);
    columnIo = new ColumnIOFactory().getColumnIO(schema);
  }

  /** Rows in the file, from its footer. */
  public long rowCount() {
    return reader.getRecordCount();
  }

  @Override
  public boolean hasNext() {
    if (rowsLeftInGroup > 0) {
      return true;
    }
    try {
      PageReadStore pages = reader.readNextRowGroup();
      if (pages == null) {
        return false;
      }
      rowsLeftInGroup = pages.getRowCount();
      rows = columnIo.getRecordReader(pages, new GroupRecordConverter(schema));
      return rowsLeftInGroup > 0;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read shard file " + file, e);
    }
  }

  @Override
  public EncodedBatch next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    Group g = rows.read();
    rowsLeftInGroup--;
    byte[] features =
        hasFeatures && g.getFieldRepetitionCount(ShardSchema.FEATURES) > 0
            ? g.getBinary(ShardSchema.FEATURES, 0).getBytes()
            : null;
    return new EncodedBatch(
        g.getInteger(ShardSchema.EPOCH, 0),
        g.getInteger(ShardSchema.BATCH, 0),
        g.getInteger(ShardSchema.NUM_SEEDS, 0),
        g.getBinary(ShardSchema.LAYER_SIZES, 0).getBytes(),
        g.getBinary(ShardSchema.NODES, 0).getBytes(),
        g.getBinary(ShardSchema.INDPTR, 0).getBytes(),
        g.getBinary(ShardSchema.INDICES, 0).getBytes(),
        g.getBinary(ShardSchema.LABELS, 0).getBytes(),
        features);
  }

  @Override
  public void close() {
    try {
      reader.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
