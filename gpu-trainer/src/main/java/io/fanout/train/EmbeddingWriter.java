package io.fanout.train;

import java.nio.file.Path;
import java.util.Locale;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * Writes node embeddings (the last hidden layer's outputs) as Parquet keyed by the original vertex
 * ids ({@link IdKeyedParquet}): columns {@code id} with the idmap's type, {@code dense_id} and
 * {@code embedding array<float>} of {@code dim} elements, and for a model with a learned input
 * table {@code learned_embedding array<float>}, the vertex's row of that table; {@code _SUCCESS}
 * adds {@code dim} (and {@code learned_dim}).
 */
final class EmbeddingWriter {
  private EmbeddingWriter() {}

  /**
   * Writes {@code hidden} ({@code vertices x dim}) to {@code out}, replacing what is there; {@code
   * storeData} is the store's {@link io.fanout.graph.GraphStore#dataRoot}.
   */
  static long write(Path storeData, float[] hidden, int dim, Path out, String request) {
    return write(storeData, hidden, dim, null, 0, out, request);
  }

  /**
   * As {@link #write(Path, float[], int, Path, String)}, with the rows of a learned input table
   * ({@code vertices x learnedDim}) in a {@code learned_embedding} column when {@code learned} is
   * not null.
   */
  static long write(
      Path storeData,
      float[] hidden,
      int dim,
      float[] learned,
      int learnedDim,
      Path out,
      String request) {
    IdKeyedParquet.Columns columns =
        new IdKeyedParquet.Columns() {
          @Override
          public Types.GroupBuilder<MessageType> declare(Types.GroupBuilder<MessageType> schema) {
            schema = floats(schema, "embedding");
            return learned == null ? schema : floats(schema, "learned_embedding");
          }

          @Override
          public void fill(Group o, int dense) {
            Group list = o.addGroup("embedding");
            int base = dense * dim;
            for (int j = 0; j < dim; j++) {
              list.addGroup("list").append("element", hidden[base + j]);
            }
            if (learned != null) {
              Group row = o.addGroup("learned_embedding");
              long at = (long) dense * learnedDim;
              for (int j = 0; j < learnedDim; j++) {
                row.addGroup("list").append("element", learned[(int) (at + j)]);
              }
            }
          }
        };
    return IdKeyedParquet.write(
        storeData,
        hidden.length / dim,
        "fanout_embedding",
        columns,
        learned == null
            ? String.format(Locale.ROOT, "\"dim\":%d", dim)
            : String.format(Locale.ROOT, "\"dim\":%d,\"learned_dim\":%d", dim, learnedDim),
        request,
        out);
  }

  private static Types.GroupBuilder<MessageType> floats(
      Types.GroupBuilder<MessageType> schema, String name) {
    return schema
        .requiredGroup()
        .as(LogicalTypeAnnotation.listType())
        .repeatedGroup()
        .required(PrimitiveTypeName.FLOAT)
        .named("element")
        .named("list")
        .named(name);
  }
}
