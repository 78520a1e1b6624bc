package io.fanout.shard;

import io.fanout.store.InvalidInputException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.schema.MessageType;

/**
 * Reads the rows of one typed shard file ({@link ShardSchema#TYPED_SCHEMA}) in order, without
 * Spark. Refuses a one-type shard file, or a file missing a typed column, naming the file. {@link
 * #verified} checks the file's bytes against the shard manifest first, as {@link
 * ShardFileReader#verified} does.
 */
public final class TypedShardFileReader implements Iterator<EncodedTypedBatch>, AutoCloseable {
  private final Path file;
  private final ShardRows rows;
  private final boolean hasPairs;
  private final boolean hasFeatures;

  /** Opens {@code file} without checking its bytes. */
  public TypedShardFileReader(Path file) {
    this(file, new LocalInputFile(file));
  }

  /** Opens {@code file} after checking its size and CRC32C against its manifest entry. */
  public static TypedShardFileReader verified(
      Path file, ShardManifest.Part expected, String manifest) {
    return new TypedShardFileReader(file, ShardFileReader.verifiedInput(file, expected, manifest));
  }

  private TypedShardFileReader(Path file, InputFile in) {
    this.file = file;
    rows = new ShardRows(file, in);
    MessageType schema = rows.schema();
    hasPairs = schema.containsField(ShardSchema.PAIRS);
    hasFeatures = schema.containsField(ShardSchema.FEATURES);
    if (!schema.containsField(ShardSchema.SEED_TYPE)) {
      close();
      throw new InvalidInputException(
          "shard file "
              + file
              + " holds one-type batches (no column '"
              + ShardSchema.SEED_TYPE
              + "'); this reader takes typed shards of a heterogeneous graph");
    }
    for (String c : ShardSchema.TYPED_SCHEMA.getFields().stream().map(f -> f.getName()).toList()) {
      if (!schema.containsField(c)) {
        close();
        throw new InvalidInputException(
            "typed shard file "
                + file
                + " has no column '"
                + c
                + "'; expected the schema "
                + ShardSchema.TYPED_SCHEMA);
      }
    }
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
  public EncodedTypedBatch next() {
    if (!hasNext()) {
      throw new NoSuchElementException();
    }
    Group g = rows.next();
    return new EncodedTypedBatch(
        g.getInteger(ShardSchema.EPOCH, 0),
        g.getInteger(ShardSchema.BATCH, 0),
        g.getInteger(ShardSchema.NUM_SEEDS, 0),
        g.getInteger(ShardSchema.SEED_TYPE, 0),
        g.getBinary(ShardSchema.LAYER_SIZES, 0).getBytes(),
        g.getBinary(ShardSchema.NODES, 0).getBytes(),
        g.getBinary(ShardSchema.INDPTR, 0).getBytes(),
        g.getBinary(ShardSchema.INDICES, 0).getBytes(),
        g.getBinary(ShardSchema.LABELS, 0).getBytes(),
        optional(g, ShardSchema.LABEL_PTR),
        optional(g, ShardSchema.LABEL_IDS),
        hasPairs ? optional(g, ShardSchema.PAIRS) : null,
        hasFeatures ? optional(g, ShardSchema.FEATURES) : null);
  }

  private static byte[] optional(Group g, String column) {
    return g.getFieldRepetitionCount(column) > 0 ? g.getBinary(column, 0).getBytes() : null;
  }

  @Override
  public void close() {
    rows.close();
  }
}
