package io.fanout.shard;

/**
 * One typed shard row: a {@link io.fanout.sample.TypedMiniBatch} as the raw column values of {@code
 * docs/formats.md} ("Typed mini-batch shards"). Array columns are little-endian int32 bytes; {@code
 * labelPtr} and {@code labelIds} are null unless the seed type is multi-label, {@code pairs} unless
 * the row is a link batch, {@code features} unless the shards inline feature rows ({@link
 * #withFeatures}).
 */
public record EncodedTypedBatch(
    int epoch,
    int batch,
    int numSeeds,
    int seedType,
    byte[] layerSizes,
    byte[] nodes,
    byte[] indptr,
    byte[] indices,
    byte[] labels,
    byte[] labelPtr,
    byte[] labelIds,
    byte[] pairs,
    byte[] features) {

  /** This row with inline feature bytes {@code f}. */
  public EncodedTypedBatch withFeatures(byte[] f) {
    return new EncodedTypedBatch(
        epoch,
        batch,
        numSeeds,
        seedType,
        layerSizes,
        nodes,
        indptr,
        indices,
        labels,
        labelPtr,
        labelIds,
        pairs,
        f);
  }
}
