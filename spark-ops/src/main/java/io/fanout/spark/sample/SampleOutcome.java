package io.fanout.spark.sample;

import io.fanout.shard.ShardManifest;
import java.nio.file.Path;

/**
 * What a {@code sample} run produced, which {@code io.fanout.spark.SampleResult} presents to
 * callers.
 *
 * @param output the shard directory as requested
 * @param manifest its manifest
 * @param skipped true when complete shards of the same request were already there
 * @param seconds how long sampling took; 0 when skipped
 * @param shuffleBytes bytes the run's Spark tasks wrote to shuffle files; -1 when not measured
 */
public record SampleOutcome(
    Path output, ShardManifest manifest, boolean skipped, double seconds, long shuffleBytes) {

  /** A run whose shuffle bytes were not measured. */
  SampleOutcome(Path output, ShardManifest manifest, boolean skipped, double seconds) {
    this(output, manifest, skipped, seconds, -1);
  }
}
