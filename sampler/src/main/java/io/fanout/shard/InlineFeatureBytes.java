package io.fanout.shard;

/**
 * The size check of a batch's inline feature rows ({@code sample --features}), one-type and typed
 * alike: the rows go in one Parquet binary value, which holds less than 2 GiB.
 */
final class InlineFeatureBytes {
  private InlineFeatureBytes() {}

  /** The most bytes one batch's inline rows may take. */
  static final long MAX = Integer.MAX_VALUE - 8;

  /**
   * {@code bytes} as an int, the size of batch {@code batch} of epoch {@code epoch}'s rows in
   * {@code enc}.
   *
   * @throws IllegalStateException when they exceed {@link #MAX}, naming the batch and what makes
   *     them smaller
   */
  static int checked(long bytes, int epoch, int batch, FeatureEncoding enc) {
    if (bytes > MAX) {
      throw new IllegalStateException(
          "batch "
              + batch
              + " of epoch "
              + epoch
              + " would inline "
              + bytes
              + " bytes of "
              + enc.id()
              + " features, more than one Parquet value holds; use --features none"
              + (enc.stored() ? "" : " or f16")
              + ", a smaller --batch-size or smaller fanouts");
    }
    return (int) bytes;
  }
}
