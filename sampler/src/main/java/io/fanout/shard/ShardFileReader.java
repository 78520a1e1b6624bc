package io.fanout.shard;

import io.fanout.store.Checksums;
import io.fanout.store.InvalidInputException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;

/**
 * Reads the rows of one shard file in order, without Spark. Checks that the file's schema has every
 * shard column; fails naming the file otherwise. {@link #verified} also checks the file's bytes
 * against the shard manifest before any row is read.
 */
public final class ShardFileReader implements Iterator<EncodedBatch>, AutoCloseable {
  private static final String RECOVERY = "rerun sample with --overwrite";

  private final Path file;
  private final ShardRows rows;
  private final boolean hasFeatures;
  private final boolean hasPairs;

  /** Opens {@code file} without checking its bytes. */
  public ShardFileReader(Path file) {
    this(file, new LocalInputFile(file));
  }

  /**
   * Opens {@code file} after checking it against its manifest entry {@code expected}: first its
   * size, then the CRC32C of all its bytes.
   *
   * <p>Why this is safe and costs one read: the file is mapped into memory and the checksum is
   * computed over the mapping before Parquet reads anything; Parquet then decodes the rows from the
   * same mapped bytes, which the checksum pass has just brought into the page cache. So no row of a
   * damaged part is ever returned (a trainer never trains on a batch of it, even one that precedes
   * the damage), and the file is read from disk once. The alternative, checking while the rows
   * stream out, would only know at the part's end, after its first batches were used. Published
   * parts are never written in place, so the bytes checked are the bytes decoded.
   *
   * @param manifest the shard manifest listing {@code expected}, for messages
   * @throws InvalidInputException naming the file, the expected and the actual size or checksum,
   *     and the way to recover, or when {@code expected} has no checksum
   */
  public static ShardFileReader verified(Path file, ShardManifest.Part expected, String manifest) {
    return new ShardFileReader(file, verifiedInput(file, expected, manifest));
  }

  /**
   * {@code file} mapped into memory after checking its size and CRC32C against {@code expected}
   * (see {@link #verified}).
   */
  static MappedInputFile verifiedInput(Path file, ShardManifest.Part expected, String manifest) {
    if (expected.crc32c == null || expected.crc32c.isEmpty()) {
      throw new InvalidInputException(
          manifest
              + " lists part "
              + expected.path
              + " without a crc32c, so it cannot be verified; "
              + RECOVERY);
    }
    MappedInputFile mapped;
    try {
      mapped = new MappedInputFile(file);
    } catch (IOException e) {
      throw unreadable(file, e);
    }
    if (mapped.getLength() != expected.bytes) {
      throw new InvalidInputException(
          file
              + ": "
              + mapped.getLength()
              + " bytes, expected "
              + expected.bytes
              + " from "
              + manifest
              + " (truncated or replaced); the shard part is damaged: "
              + RECOVERY);
    }
    String crc = Checksums.hex(mapped.crc32c());
    if (!crc.equals(expected.crc32c)) {
      throw new InvalidInputException(
          file
              + ": CRC32C "
              + crc
              + ", expected "
              + expected.crc32c
              + " from "
              + manifest
              + "; the shard part is damaged: "
              + RECOVERY);
    }
    return mapped;
  }

  /**
   * Why {@code file} could not be opened: gone (its shard directory was replaced or removed while a
   * reader held the old version), or not a Parquet shard.
   */
  static InvalidInputException unreadable(Path file, Exception e) {
    if (!java.nio.file.Files.exists(file)) {
      return new InvalidInputException(
          "shard file "
              + file
              + " is gone: its shard directory was replaced (sample --overwrite) or removed while"
              + " this run read it; run again on the current shards",
          e);
    }
    return new InvalidInputException(
        "cannot read shard file " + file + ": " + e.getMessage() + "; expected a Parquet shard", e);
  }

  ShardFileReader(Path file, InputFile in) {
    this.file = file;
    rows = new ShardRows(file, in);
    MessageType schema = rows.schema();
    if (schema.containsField(ShardSchema.SEED_TYPE)) {
      close();
      throw new InvalidInputException(
          "shard file "
              + file
              + " holds typed batches of a heterogeneous graph; this reader takes one-type shards"
              + " (read typed shards with TypedShardFileReader, train them with a typed model)");
    }
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
    hasPairs = schema.containsField(ShardSchema.PAIRS);
  }

  /** Rows in the file, from its footer. */
  public long rowCount() {
    return rows.rowCount();
  }

  @Override
  public boolean hasNext() {
    return rows.hasNext();
  }

  @Override
  public EncodedBatch next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    Group g = rows.next();
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
        features,
        hasPairs && g.getFieldRepetitionCount(ShardSchema.PAIRS) > 0
            ? g.getBinary(ShardSchema.PAIRS, 0).getBytes()
            : null);
  }

  @Override
  public void close() {
    rows.close();
  }
}
