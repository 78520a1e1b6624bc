package io.fanout.shard;

import io.fanout.graph.FeatureTable;
import io.fanout.sample.MiniBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32C;
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
        seeds += e.numSeeds();
        edges += e.indices().length / 4;
        nodes += e.nodes().length / 4;
      }
    }
    try {
      return new Written(n, seeds, edges, nodes, Files.size(file), crc32c(file));
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
    long rows = 0;
    long seeds = 0;
    long edges = 0;
    long nodes = 0;
    float[] rowsBuf = new float[0];
    try (ShardFileWriter w = new ShardFileWriter(file, codec, metadata)) {
      while (batches.hasNext()) {
        MiniBatch b = batches.next();
        float[] f = null;
        if (enc != FeatureEncoding.NONE) {
          int dim = features.dim();
          long need = (long) b.nodes().length * dim;
          if (need > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("batch " + b.batch() + " has too many feature values");
          }
          if (rowsBuf.length != need) {
            rowsBuf = new float[(int) need];
          }
          features.gather(b.nodes(), 0, b.nodes().length, rowsBuf, 0);
          f = rowsBuf;
        }
        w.write(BatchCodec.encode(b, f, enc));
        rows++;
        seeds += b.numSeeds();
        edges += b.numEdges();
        nodes += b.nodes().length;
      }
    }
    try {
      return new Written(rows, seeds, edges, nodes, Files.size(file), crc32c(file));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot stat " + file, e);
    }
  }

  /** CRC32C of a file as 8 lower-case hex digits (as in store manifests). */
  public static String crc32c(Path file) {
    CRC32C crc = new CRC32C();
    ByteBuffer buf = ByteBuffer.allocate(1 << 20);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      while (ch.read(buf) >= 0) {
        buf.flip();
        crc.update(buf);
        buf.clear();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    return String.format(Locale.ROOT, "%08x", crc.getValue());
  }
}
