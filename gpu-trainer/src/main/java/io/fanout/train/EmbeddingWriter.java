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
 * {@code embedding array<float>} of {@code dim} elements; {@code _SUCCESS} adds {@code dim}.
 */
final class EmbeddingWriter {
  private EmbeddingWriter() {}

  /**
   * Writes {@code hidden} ({@code vertices x dim}) to {@code out}, replacing what is there; {@code
   * storeData} is the store's {@link io.fanout.graph.GraphStore#dataRoot}.
   */
  static long write(Path storeData, float[] hidden, int dim, Path out, String request) {
    IdKeyedParquet.Columns columns =
        new IdKeyedParquet.Columns() {
          @Override
          public Types.GroupBuilder<MessageType> declare(Types.GroupBuilder<MessageType> schema) {
            return schema
                .requiredGroup()
                .as(LogicalTypeAnnotation.listType())
                .repeatedGroup()
                .required(PrimitiveTypeName.FLOAT)
                .named("element")
                .named("list")
                .named("embedding");
          }

          @Override
          public void fill(Group o, int dense) {
            Group list = o.addGroup("embedding");
            int base = dense * dim;
            for (int j = 0; j < dim; j++) {
              list.addGroup("list").append("element", hidden[base + j]);
            }
          }
        };
    return IdKeyedParquet.write(
        storeData,
        hidden.length / dim,
        "fanout_embedding",
        columns,
        String.format(Locale.ROOT, "\"dim\":%d", dim),
        request,
        out);
  }
}
