package io.fanout.shard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;

/**
 * The rows of one shard file as Parquet groups, row group by row group in file order: what the
 * one-type and the typed shard readers decode their batches from.
 */
final class ShardRows implements AutoCloseable {
  private final Path file;
  private final ParquetFileReader reader;
  private final MessageType schema;
  private final MessageColumnIO columnIo;
  private RecordReader<Group> rows;
  private long rowsLeftInGroup;

  /**
   * Opens the bytes {@code in} of {@code file}.
   *
   * @throws io.fanout.store.InvalidInputException when the file is gone or not Parquet ({@link
   *     ShardFileReader#unreadable})
   */
  ShardRows(Path file, InputFile in) {
    this.file = file;
    try {
      reader = ParquetFileReader.open(in);
    } catch (IOException | RuntimeException e) {
      throw ShardFileReader.unreadable(file, e);
    }
    schema = reader.getFooter().getFileMetaData().getSchema();
    columnIo = new ColumnIOFactory().getColumnIO(schema);
  }

  /** The file's schema, from its footer. */
  MessageType schema() {
    return schema;
  }

  /** Rows in the file, from its footer. */
  long rowCount() {
    return reader.getRecordCount();
  }

  /** Whether a row is left, reading the next row group when the current one is done. */
  boolean hasNext() {
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

  /** The next row; call only after {@link #hasNext} returned true. */
  Group next() {
    rowsLeftInGroup--;
    return rows.read();
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
