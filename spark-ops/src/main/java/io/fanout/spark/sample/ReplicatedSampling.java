package io.fanout.spark.sample;

import io.fanout.graph.GraphStore;
import io.fanout.sample.BatchSampler;
import io.fanout.sample.BatchStream;
import io.fanout.sample.LinkSampler;
import io.fanout.sample.NegativeSampler;
import io.fanout.sample.NeighborSampler;
import io.fanout.shard.ShardPartWriter;
import io.fanout.shard.ShardPlan;
import io.fanout.spark.internal.JobLabels;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.Function;

/**
 * The replicated mode (SALIENT model): every task memory-maps the whole store and samples a fixed
 * range of batches (one part file) on {@code --threads} sampler threads. One task per part, so a
 * retried task rewrites exactly one part, with the same bytes.
 */
final class ReplicatedSampling {
  private ReplicatedSampling() {}

  static List<PartResult> run(JavaSparkContext jsc, SampleSpec spec, String staging) {
    return onePerPart(
        jsc, spec.plan, "sample " + spec.epochs + " epoch(s)", g -> writePart(spec, staging, g));
  }

  /**
   * One task per part file of {@code plan}, each running {@code writePart} on its global part
   * index: all epochs in one job labelled {@code what}, so that short epochs still fill every
   * executor slot.
   */
  static List<PartResult> onePerPart(
      JavaSparkContext jsc, ShardPlan plan, String what, Function<Integer, PartResult> writePart) {
    long total = plan.totalParts();
    if (total > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(total + " part files are too many");
    }
    List<Integer> parts = new ArrayList<>((int) total);
    for (int g = 0; g < total; g++) {
      parts.add(g);
    }
    return JobLabels.call(
        jsc.sc(),
        "sample",
        what + " into " + total + " part file(s)",
        1,
        1,
        () -> jsc.parallelize(parts, Math.max(1, (int) total)).map(writePart).collect());
  }

  static PartResult writePart(SampleSpec spec, String staging, int globalPart) {
    int epoch = globalPart / spec.plan.partsPerEpoch();
    int part = globalPart % spec.plan.partsPerEpoch();
    GraphStore store = StoreCache.open(spec.store, spec.storeFingerprint);
    int[] order = StoreCache.order(store, spec, epoch);
    BatchSampler sampler =
        spec.link == null
            ? new NeighborSampler(
                store.csr(),
                store.vertices(),
                spec.weighted ? store.weights() : null,
                spec.fanouts,
                spec.seed)
            : new LinkSampler(
                store.csr(),
                store.vertices(),
                spec.weighted ? store.weights() : null,
                spec.fanouts,
                spec.seed,
                StoreCache.trainEdges(store, spec),
                NegativeSampler.of(spec.link.negatives(), store.csr()),
                spec.link.perPositive());
    return PartFiles.write(
        spec,
        staging,
        epoch,
        part,
        tmp -> {
          try (BatchStream batches =
              new BatchStream(
                  sampler,
                  epoch,
                  order,
                  spec.batchSize,
                  spec.plan.firstBatch(part),
                  spec.plan.endBatch(part),
                  spec.threads,
                  2 * spec.threads + 2)) {
            return ShardPartWriter.write(
                tmp,
                batches,
                store.features(),
                spec.features,
                spec.codec(),
                spec.metadata(epoch, part));
          }
        });
  }
}
