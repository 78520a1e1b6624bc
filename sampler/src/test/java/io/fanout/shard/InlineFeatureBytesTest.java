package io.fanout.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The one size check of a batch's inline rows, shared by one-type and typed shards: up to one
 * Parquet value's bytes pass as they are; more fail naming the batch, its epoch and the bytes, and
 * suggest f16 only to float rows, which it makes smaller.
 */
class InlineFeatureBytesTest {
  @Test
  void rowsUpToOneParquetValuePassAndMoreFailNamingTheBatch() {
    assertThat(InlineFeatureBytes.checked(InlineFeatureBytes.MAX, 0, 0, FeatureEncoding.F32))
        .isEqualTo(Integer.MAX_VALUE - 8);
    long over = InlineFeatureBytes.MAX + 1;
    assertThatThrownBy(() -> InlineFeatureBytes.checked(over, 2, 7, FeatureEncoding.F32))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("batch 7 of epoch 2 would inline " + over + " bytes of f32")
        .hasMessageContaining("use --features none or f16,");
    assertThatThrownBy(() -> InlineFeatureBytes.checked(over, 0, 1, FeatureEncoding.INT8))
        .hasMessageContaining("bytes of int8")
        .hasMessageContaining("use --features none, a smaller --batch-size");
  }
}
