package io.fanout.train;

import io.fanout.store.ParquetFooters;
import java.io.IOException;
import java.io.UncheckedIOException;
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
 * published like the other id-keyed outputs ({@link IdKeyedParquet#publish}). The pairs come and
 * are scored a chunk at a time ({@link CandidatePairChunks}), so the file grows as they do.
 */
final class PairScoreWriter {
  static final String FILE = "part-00000.parquet";

  private PairScoreWriter() {}

  /** Scores {@code pairs} with {@code scorer} chunk by chunk and writes them, in order. */
  static long write(
      CandidatePairChunks pairs, PairScoring.Scorer scorer, Path out, String request) {
    return IdKeyedParquet.publish(
        out,
        "pair scores",
        "\"task\":\"link\"",
        request,
        staging -> {
          Path file = staging.resolve(FILE);
          try (Rows rows = new Rows(file)) {
            pairs.forEach((first, p) -> rows.add(p, scorer.scores(p)));
          } catch (UncheckedIOException e) {
            throw e.getCause();
          }
          ParquetFooters.canonicalize(file);
          return pairs.size();
        });
  }

  /** The scores file, opened with the id columns of the first chunk. */
  private static final class Rows implements AutoCloseable {
    private final Path file;
    private SimpleGroupFactory groups;
    private ParquetWriter<Group> writer;

    Rows(Path file) {
      this.file = file;
    }

    void add(CandidatePairs pairs, float[] scores) {
      try {
        if (writer == null) {
          MessageType schema =
              pairs
                  .declare(Types.buildMessage())
                  .required(PrimitiveTypeName.FLOAT)
                  .named("score")
                  .named("fanout_pair_score");
          groups = new SimpleGroupFactory(schema);
          writer = IdKeyedParquet.openWriter(file, schema);
        }
        for (int i = 0; i < pairs.size(); i++) {
          Group g = groups.newGroup();
          pairs.fill(g, i);
          g.add("score", scores[i]);
          writer.write(g);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() throws IOException {
      if (writer != null) {
        writer.close();
      }
    }
  }
}
