package io.fanout.shard;

import io.fanout.sample.TypedMiniBatch;
import io.fanout.store.Checksums;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.Map;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * Writes one typed part file from a stream of typed batches ({@link TypedBatchCodec}) and reports
 * what it wrote, as {@link ShardPartWriter} does for one-type batches. Typed shards hold ids, and
 * with inline features ({@link TypedFeatureRows}) every featured type's rows. The same batches and
 * metadata give the same bytes.
 */
public final class TypedShardPartWriter {
  private TypedShardPartWriter() {}

  /** The positive pairs of a link batch: its seeds (training edges). */
  private static int positives(int[] label) {
    int n = 0;
    for (int l : label) {
      n += l;
    }
    return n;
  }

  /**
   * Writes {@code batches} to {@code file} (which must not exist); a link batch's seeds are its
   * positive pairs.
   *
   * @param metadata the part's key-value metadata; {@code fanout.kind=typed} is added
   */
  public static ShardPartWriter.Written write(
      Path file,
      Iterator<TypedMiniBatch> batches,
      CompressionCodecName codec,
      Map<String, String> metadata) {
    return write(file, batches, null, FeatureEncoding.NONE, codec, metadata);
  }

  /**
   * As {@link #write(Path, Iterator, CompressionCodecName, Map)}, inlining each batch's feature
   * rows in {@code enc} ({@link TypedFeatureRows}); the metadata must name {@code enc} under {@link
   * ShardSchema#FEATURES_KEY}.
   *
   * @param tables per type the table to gather rows from (null: none); unused when {@code enc} is
   *     NONE
   */
  public static ShardPartWriter.Written write(
      Path file,
      Iterator<TypedMiniBatch> batches,
      io.fanout.graph.FeatureTable[] tables,
      FeatureEncoding enc,
      CompressionCodecName codec,
      Map<String, String> metadata) {
    Map<String, String> meta = new java.util.LinkedHashMap<>(metadata);
    meta.put(ShardSchema.KIND_KEY, ShardSchema.TYPED);
    long n = 0;
    long seeds = 0;
    long edges = 0;
    long nodes = 0;
    try (ShardFileWriter w = new ShardFileWriter(file, codec, meta)) {
      while (batches.hasNext()) {
        TypedMiniBatch b = batches.next();
        EncodedTypedBatch e = TypedBatchCodec.encode(b);
        if (enc != FeatureEncoding.NONE) {
          e = e.withFeatures(TypedFeatureRows.encode(b, tables, enc));
        }
        w.write(e);
        n++;
        seeds += b.pairs() == null ? e.numSeeds() : positives(b.pairs().label());
        edges += e.indices().length / 4;
        nodes += e.nodes().length / 4;
      }
    }
    try {
      return new ShardPartWriter.Written(
          n, seeds, edges, nodes, Files.size(file), Checksums.crc32c(file));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stat " + file, e);
    }
  }
}
