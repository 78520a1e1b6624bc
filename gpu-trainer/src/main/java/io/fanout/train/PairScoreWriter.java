package io.fanout.train;

import io.fanout.store.ParquetFooters;
import java.nio.file.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * Writes the scores of candidate pairs ({@code infer --task link --pairs}) as one Parquet file in
 * the input's row order: columns {@code src}, {@code dst} (the original ids, with the id map's
 * type) and {@code score} (the decoder's logit; {@code sigmoid(score)} is the link probability),
 * published like the other id-keyed outputs ({@link IdKeyedParquet#publish}).
 */
final class PairScoreWriter {
  static final String FILE = "part-00000.parquet";

  private PairScoreWriter() {}

  static long write(CandidatePairs pairs, float[] scores, Path out, String request) {
    MessageType schema =
        pairs
            .declare(Types.buildMessage())
            .required(PrimitiveTypeName.FLOAT)
            .named("score")
            .named("fanout_pair_score");
    return IdKeyedParquet.publish(
        out,
        "pair scores",
        "\"task\":\"link\"",
        request,
        staging -> {
          Path file = staging.resolve(FILE);
          SimpleGroupFactory f = new SimpleGroupFactory(schema);
          try (ParquetWriter<Group> w = IdKeyedParquet.openWriter(file, schema)) {
            for (int i = 0; i < pairs.size(); i++) {
              Group g = f.newGroup();
              pairs.fill(g, i);
              g.add("score", scores[i]);
              w.write(g);
            }
          }
          ParquetFooters.canonicalize(file);
          return pairs.size();
        });
  }
}
