package io.fanout.shard;

/**
 * One shard row: a mini-batch as the raw column values of {@code docs/formats.md} ("Mini-batch
 * shards"). Array columns are little-endian bytes; {@code features} is null when the shard stores
 * node ids only; {@code pairs} is null except in link-prediction shards ({@code sample --task
 * link}), where it holds the batch's pairs as int32 {@code src[P], dst[P], label[P]}.
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
    byte[] features,
    byte[] pairs) {

  /** A row without pairs (node classification). */
  public EncodedBatch(
      int epoch,
      int batch,
      int numSeeds,
      byte[] layerSizes,
      byte[] nodes,
      byte[] indptr,
      byte[] indices,
      byte[] labels,
      byte[] features) {
    this(epoch, batch, numSeeds, layerSizes, nodes, indptr, indices, labels, features, null);
  }

  /** This row with {@code features} in place of its own. */
  public EncodedBatch withFeatures(byte[] features) {
    return new EncodedBatch(
        epoch, batch, numSeeds, layerSizes, nodes, indptr, indices, labels, features, pairs);
  }
}
