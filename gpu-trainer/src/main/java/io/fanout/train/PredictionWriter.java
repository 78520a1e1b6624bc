package io.fanout.train;

import java.nio.file.Path;
import java.util.Locale;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * Writes predictions as Parquet keyed by the original vertex ids ({@link IdKeyedParquet}): columns
 * {@code id} with the idmap's type, {@code dense_id}, {@code prediction} (the most probable class)
 * and {@code probabilities array<float>} (softmax); {@code _SUCCESS} adds {@code classes}.
 */
final class PredictionWriter {
  private PredictionWriter() {}

  /**
   * Writes {@code probs} ({@code vertices x classes}) to {@code out}, replacing what is there;
   * {@code storeData} is the store's {@link io.fanout.graph.GraphStore#dataRoot}.
   */
  static long write(Path storeData, float[] probs, int classes, Path out, String request) {
    IdKeyedParquet.Columns columns =
        new IdKeyedParquet.Columns() {
          @Override
          public Types.GroupBuilder<MessageType> declare(Types.GroupBuilder<MessageType> schema) {
            return schema
                .required(PrimitiveTypeName.INT32)
                .named("prediction")
                .requiredGroup()
                .as(LogicalTypeAnnotation.listType())
                .repeatedGroup()
                .required(PrimitiveTypeName.FLOAT)
                .named("element")
                .named("list")
                .named("probabilities");
          }

          @Override
          public void fill(Group o, int dense) {
            int best = 0;
            for (int c = 1; c < classes; c++) {
              if (probs[dense * classes + c] > probs[dense * classes + best]) {
                best = c;
              }
            }
            o.add("prediction", best);
            Group list = o.addGroup("probabilities");
            for (int c = 0; c < classes; c++) {
              list.addGroup("list").append("element", probs[dense * classes + c]);
            }
          }
        };
    return IdKeyedParquet.write(
        storeData,
        probs.length / classes,
        "fanout_prediction",
        columns,
        String.format(Locale.ROOT, "\"classes\":%d", classes),
        request,
        out);
  }
}
