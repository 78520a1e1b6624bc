package io.fanout.shard;

import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/** Column names and the Parquet schema of a mini-batch shard ({@code docs/formats.md}). */
public final class ShardSchema {
  private ShardSchema() {}

  /** Version of the shard layout, stored in each file's key-value metadata. */
  public static final int VERSION = 1;

  public static final String EPOCH = "epoch";
  public static final String BATCH = "batch";
  public static final String NUM_SEEDS = "num_seeds";
  public static final String LAYER_SIZES = "layer_sizes";
  public static final String NODES = "nodes";
  public static final String INDPTR = "indptr";
  public static final String INDICES = "indices";
  public static final String LABELS = "labels";
  public static final String FEATURES = "features";
  public static final String PAIRS = "pairs";

  /** Key-value metadata saying a shard holds link-prediction batches ({@link #LINK_SCHEMA}). */
  public static final String TASK_KEY = "fanout.task";

  public static final MessageType SCHEMA =
      Types.buildMessage()
          .required(PrimitiveTypeName.INT32)
          .named(EPOCH)
          .required(PrimitiveTypeName.INT32)
          .named(BATCH)
          .required(PrimitiveTypeName.INT32)
          .named(NUM_SEEDS)
          .required(PrimitiveTypeName.BINARY)
          .named(LAYER_SIZES)
          .required(PrimitiveTypeName.BINARY)
          .named(NODES)
          .required(PrimitiveTypeName.BINARY)
          .named(INDPTR)
          .required(PrimitiveTypeName.BINARY)
          .named(INDICES)
          .required(PrimitiveTypeName.BINARY)
          .named(LABELS)
          .optional(PrimitiveTypeName.BINARY)
          .named(FEATURES)
          .named("fanout_minibatch");

  /**
   * {@link #SCHEMA} plus the optional {@code pairs} column of link-prediction shards; node
   * classification shards keep {@link #SCHEMA}, so their bytes do not change.
   */
  public static final MessageType LINK_SCHEMA =
      Types.buildMessage()
          .addFields(SCHEMA.getFields().toArray(new org.apache.parquet.schema.Type[0]))
          .optional(PrimitiveTypeName.BINARY)
          .named(PAIRS)
          .named("fanout_minibatch");

  /** The schema of a part file with key-value {@code metadata}. */
  public static MessageType schemaFor(java.util.Map<String, String> metadata) {
    return "link".equals(metadata.get(TASK_KEY)) ? LINK_SCHEMA : SCHEMA;
  }
}
