package io.fanout.spark.sample;

import io.fanout.shard.ShardManifest;
import io.fanout.shard.ShardPartWriter;
import io.fanout.shard.ShardPlan;
import java.io.Serializable;

/** What a task reports about the part file it wrote: a few numbers, never data. */
final class PartResult implements Serializable {
  private static final long serialVersionUID = 1L;

  final int epoch;
  final int part;
  final int firstBatch;
  final int endBatch;
  final long rows;
  final long seeds;
  final long nodes;
  final long edges;
  final long bytes;
  final String crc32c;

  PartResult(int epoch, int part, int firstBatch, int endBatch, ShardPartWriter.Written w) {
    this.epoch = epoch;
    this.part = part;
    this.firstBatch = firstBatch;
    this.endBatch = endBatch;
    this.rows = w.rows();
    this.seeds = w.seeds();
    this.nodes = w.nodes();
    this.edges = w.edges();
    this.bytes = w.bytes();
    this.crc32c = w.crc32c();
  }

  ShardManifest.Part toManifest() {
    ShardManifest.Part p = new ShardManifest.Part();
    p.path = ShardPlan.partPath(epoch, part);
    p.epoch = epoch;
    p.part = part;
    p.firstBatch = firstBatch;
    p.endBatch = endBatch;
    p.seeds = seeds;
    p.nodes = nodes;
    p.edges = edges;
    p.bytes = bytes;
    p.crc32c = crc32c;
    return p;
  }
}
