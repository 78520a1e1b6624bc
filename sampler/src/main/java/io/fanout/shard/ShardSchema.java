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

  public static final String SEED_TYPE = "seed_type";
  public static final String LABEL_PTR = "label_ptr";
  public static final String LABEL_IDS = "label_ids";

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

  /**
   * Key-value metadata saying a shard holds typed batches of a heterogeneous graph ({@link
   * #TYPED_SCHEMA}), value {@link #TYPED}.
   */
  public static final String KIND_KEY = "fanout.kind";

  /** The {@link #KIND_KEY} value of typed shards. */
  public static final String TYPED = "typed";

  /**
   * The schema of typed shards ({@code docs/formats.md}, "Typed mini-batch shards"): per type node
   * lists and layer sizes, per hop and relation blocks, the seeds' labels and label sets. The
   * column {@link #SEED_TYPE} marks a typed file.
   */
  public static final MessageType TYPED_SCHEMA =
      Types.buildMessage()
          .required(PrimitiveTypeName.INT32)
          .named(EPOCH)
          .required(PrimitiveTypeName.INT32)
          .named(BATCH)
          .required(PrimitiveTypeName.INT32)
          .named(NUM_SEEDS)
          .required(PrimitiveTypeName.INT32)
          .named(SEED_TYPE)
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
          .named(LABEL_PTR)
          .optional(PrimitiveTypeName.BINARY)
          .named(LABEL_IDS)
          .named("fanout_typed_minibatch");

  /**
   * {@link #TYPED_SCHEMA} plus the optional {@code pairs} column of typed link-prediction shards;
   * node classification shards keep {@link #TYPED_SCHEMA}.
   */
  public static final MessageType TYPED_LINK_SCHEMA =
      Types.buildMessage()
          .addFields(TYPED_SCHEMA.getFields().toArray(new org.apache.parquet.schema.Type[0]))
          .optional(PrimitiveTypeName.BINARY)
          .named(PAIRS)
          .named("fanout_typed_minibatch");

  /**
   * Key-value metadata naming how a part file inlines feature rows ({@link FeatureEncoding#id});
   * typed part files carry the {@link #FEATURES} column only when it is not {@code none}.
   */
  public static final String FEATURES_KEY = "fanout.features";

  /**
   * The schema of typed part files: {@link #TYPED_SCHEMA}, then {@code pairs} for link batches,
   * then {@code features} where rows inline feature rows. Files without either keep the bytes of
   * shards written before inline features.
   */
  public static MessageType typedSchema(boolean link, boolean features) {
    if (!features) {
      return link ? TYPED_LINK_SCHEMA : TYPED_SCHEMA;
    }
    MessageType base = link ? TYPED_LINK_SCHEMA : TYPED_SCHEMA;
    return Types.buildMessage()
        .addFields(base.getFields().toArray(new org.apache.parquet.schema.Type[0]))
        .optional(PrimitiveTypeName.BINARY)
        .named(FEATURES)
        .named("fanout_typed_minibatch");
  }

  /** Whether key-value {@code metadata} marks a typed part file. */
  public static boolean typed(java.util.Map<String, String> metadata) {
    return TYPED.equals(metadata.get(KIND_KEY));
  }

  /** The schema of a part file with key-value {@code metadata}. */
  public static MessageType schemaFor(java.util.Map<String, String> metadata) {
    if (typed(metadata)) {
      String f = metadata.get(FEATURES_KEY);
      return typedSchema(
          "link".equals(metadata.get(TASK_KEY)), f != null && !f.equals(FeatureEncoding.NONE.id()));
    }
    return "link".equals(metadata.get(TASK_KEY)) ? LINK_SCHEMA : SCHEMA;
  }
}
