package io.fanout.shard;

/**
 * One shard row: a mini-batch as the raw column values of {@code docs/formats.md} ("Mini-batch
 * shards"). Array columns are little-endian bytes; {@code features} is null when the shard stores
 * node ids only.
 */
public record EncodedBatch(
    int epoch,
    int batch,
    int numSeeds,
    byte[] layerSizes,
    byte[] nodes,
    byte[] indptr,
    byte[] indices,
    byte[] labels,
    byte[] features) {}
