package io.fanout.shard;

import io.fanout.graph.FeatureTable;
import io.fanout.sample.MiniBatch;
import io.fanout.store.Checksums;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Writes one part file from a stream of batches: encodes each ({@link BatchCodec}), gathering the
 * feature rows of its nodes when features are inlined, and reports what it wrote. The same batches
 * and metadata give the same bytes.
 */
public final class ShardPartWriter {
  private ShardPartWriter() {}

  /** What one part file holds. */
  public record Written(long rows, long seeds, long edges, long nodes, long bytes, String crc32c) {}

  /**
   * Writes already encoded rows to {@code file} (which must not exist); their features, if any, are
   * encoded as the rows say.
   */
  public static Written writeEncoded(
      Path file,
      Iterator<EncodedBatch> rows,
      CompressionCodecName codec,
      Map<String, String> metadata) {
    long n = 0;
    long seeds = 0;
    long edges = 0;
    long nodes = 0;
    try (ShardFileWriter w = new ShardFileWriter(file, codec, metadata)) {
      while (rows.hasNext()) {
        EncodedBatch e = rows.next();
        w.write(e);
        n++;
        seeds += e.pairs() == null ? e.numSeeds() : BatchCodec.positives(e);
        edges += e.indices().length / 4;
        nodes += e.nodes().length / 4;
      }
    }
    try {
      return new Written(n, seeds, edges, nodes, Files.size(file), Checksums.crc32c(file));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stat " + file, e);
    }
  }

  /**
   * Writes {@code batches} to {@code file} (which must not exist).
   *
   * @param features the feature table to gather rows from; unused when {@code enc} is NONE
   */
  public static Written write(
      Path file,
      Iterator<MiniBatch> batches,
      FeatureTable features,
      FeatureEncoding enc,
      CompressionCodecName codec,
      Map<String, String> metadata) {
    Iterator<EncodedBatch> encoded =
        new Iterator<>() {
          private float[] chunk = new float[0];

          @Override
          public boolean hasNext() {
            return batches.hasNext();
          }

          @Override
          public EncodedBatch next() {
            MiniBatch b = batches.next();
            EncodedBatch e = BatchCodec.encode(b, null, FeatureEncoding.NONE);
            if (enc == FeatureEncoding.NONE) {
              return e;
            }
            return e.withFeatures(gatherFeatures(b, features, enc));
          }

          /** Gathers and encodes the rows a chunk at a time: no float copy of the whole batch. */
          private byte[] gatherFeatures(MiniBatch b, FeatureTable table, FeatureEncoding enc) {
            int[] ids = b.nodes();
            int dim = table.dim();
            int rowBytes = enc.stored() ? table.decoder().rowBytes() : dim * enc.bytesPerValue();
            int size =
                InlineFeatureBytes.checked((long) ids.length * rowBytes, b.epoch(), b.batch(), enc);
            byte[] out = new byte[size];
            if (enc.stored()) {
              // the store's rows, undecoded: the trainer decodes them with the store's parameters
              table.gatherEncoded(ids, 0, ids.length, out, 0);
              return out;
            }
            int rowsPerChunk = Math.max(1, (1 << 16) / Math.max(dim, 1));
            if (chunk.length < rowsPerChunk * dim) {
              chunk = new float[rowsPerChunk * dim];
            }
            for (int i = 0; i < ids.length; i += rowsPerChunk) {
              int c = Math.min(rowsPerChunk, ids.length - i);
              table.gather(ids, i, c, chunk, 0);
              BatchCodec.encodeFeaturesInto(chunk, c * dim, enc, out, i * rowBytes);
            }
            return out;
          }
        };
    return writeEncoded(file, encoded, codec, metadata);
  }
}
