package io.fanout.spark.sample;

import io.fanout.graph.StorePartition;
import io.fanout.sample.PartialBatch;
import io.fanout.shard.BatchCodec;
import io.fanout.shard.EncodedBatch;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.ShardPartWriter;
import io.fanout.shard.ShardPlan;
import io.fanout.spark.sample.HopExchange.Answer;
import io.fanout.spark.sample.HopExchange.Request;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.Partitioner;
import scala.Tuple2;

/**
 * The last stage of the partitioned mode: each batch with its feature rows (fetched from the
 * partitions owning its nodes) keyed {@code part << 32 | batch}, and the task writing one part file
 * from its sorted records.
 */
final class PartAssembly {
  private PartAssembly() {}

  /** {@code part << 32 | batch} for batch {@code batchId} ({@code epoch << 32 | batch}). */
  static long partKey(SampleSpec spec, long batchId) {
    return partKey(spec.plan, batchId);
  }

  /** {@code part << 32 | batch} for batch {@code batchId} of {@code plan}. */
  static long partKey(ShardPlan plan, long batchId) {
    int epoch = (int) (batchId >>> 32);
    int batch = (int) batchId;
    long part = (long) epoch * plan.partsPerEpoch() + plan.partOf(batch);
    return part << 32 | batch;
  }

  /** Encoded feature rows of a request, in answers of about 1 MB keyed for the writer. */
  static Iterator<Tuple2<Long, Object>> features(SampleSpec spec, int p, Request r) {
    StorePartition part = OpenPartitions.get(spec, p);
    int dim = part.dim();
    int rowBytes = spec.featureRowBytes;
    int rowsPerAnswer = Math.max(1, (1 << 20) / Math.max(rowBytes, 1));
    long key = partKey(spec, r.batchId);
    List<Tuple2<Long, Object>> out = new ArrayList<>();
    boolean stored = spec.features.stored();
    float[] values = stored ? null : new float[Math.min(rowsPerAnswer, r.nodes.length) * dim];
    for (int from = 0; from < r.nodes.length; from += rowsPerAnswer) {
      int n = Math.min(rowsPerAnswer, r.nodes.length - from);
      byte[] bytes = new byte[n * rowBytes];
      if (stored) {
        // the store's encoded rows, undecoded
        for (int i = 0; i < n; i++) {
          part.encodedFeatures(r.nodes[from + i], rowBytes, bytes, i * rowBytes);
        }
      } else {
        for (int i = 0; i < n; i++) {
          part.features(r.nodes[from + i], values, i * dim);
        }
        BatchCodec.encodeFeaturesInto(values, n * dim, spec.features, bytes, 0);
      }
      out.add(
          new Tuple2<>(
              key, new Answer(Arrays.copyOfRange(r.local, from, from + n), null, null, bytes)));
    }
    return out.iterator();
  }

  /**
   * Writes part file {@code globalPart} from its records sorted by key: each batch followed by its
   * feature rows, batches in order.
   */
  static Iterator<PartResult> writePart(
      SampleSpec spec, String staging, int globalPart, Iterator<Tuple2<Long, Object>> records) {
    if (!records.hasNext()) {
      return java.util.Collections.emptyIterator();
    }
    int epoch = globalPart / spec.plan.partsPerEpoch();
    int part = globalPart % spec.plan.partsPerEpoch();
    Iterator<EncodedBatch> encoded =
        new Iterator<>() {
          private Tuple2<Long, Object> peeked = records.next();
          private int expected = spec.plan.firstBatch(part);

          @Override
          public boolean hasNext() {
            return peeked != null;
          }

          @Override
          public EncodedBatch next() {
            long key = peeked._1();
            PartialBatch pb = null;
            List<Answer> rows = new ArrayList<>();
            while (peeked != null && peeked._1() == key) {
              if (peeked._2() instanceof PartialBatch b) {
                pb = b;
              } else {
                rows.add((Answer) peeked._2());
              }
              peeked = records.hasNext() ? records.next() : null;
            }
            if (pb == null || pb.epoch != epoch || pb.batch != expected++) {
              throw new IllegalStateException(
                  "part " + epoch + ":" + part + " lacks batch " + (expected - 1));
            }
            EncodedBatch e = BatchCodec.encode(pb.toMiniBatch(), null, FeatureEncoding.NONE);
            return new EncodedBatch(
                e.epoch(),
                e.batch(),
                e.numSeeds(),
                e.layerSizes(),
                e.nodes(),
                e.indptr(),
                e.indices(),
                e.labels(),
                spec.features == FeatureEncoding.NONE ? null : assemble(spec, pb, rows),
                e.pairs());
          }
        };
    return List.of(
            PartFiles.write(
                spec,
                staging,
                epoch,
                part,
                tmp ->
                    ShardPartWriter.writeEncoded(
                        tmp, encoded, spec.codec(), spec.metadata(epoch, part))))
        .iterator();
  }

  private static byte[] assemble(SampleSpec spec, PartialBatch pb, List<Answer> rows) {
    int rowBytes = spec.featureRowBytes;
    byte[] out = new byte[Math.multiplyExact(pb.nodes.length, rowBytes)];
    int filled = 0;
    for (Answer a : rows) {
      for (int k = 0; k < a.local.length; k++) {
        System.arraycopy(a.bytes, k * rowBytes, out, a.local[k] * rowBytes, rowBytes);
      }
      filled += a.local.length;
    }
    if (filled != pb.nodes.length) {
      throw new IllegalStateException(
          "batch " + pb.batch + ": " + filled + " feature rows for " + pb.nodes.length + " nodes");
    }
    return out;
  }

  /** Partitioner by part file: the key is {@code part << 32 | batch}. */
  static final class PartPartitioner extends Partitioner {
    private static final long serialVersionUID = 1L;
    private final int n;

    PartPartitioner(int n) {
      this.n = Math.max(n, 1);
    }

    @Override
    public int numPartitions() {
      return n;
    }

    @Override
    public int getPartition(Object key) {
      return (int) ((Long) key >>> 32);
    }
  }
}
