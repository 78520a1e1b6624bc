package io.fanout.spark.prepare;

import java.util.Map;
import org.junit.jupiter.api.Tag;

/**
 * {@code prepare --dry-run} with shuffle files compressed by ZStandard ({@code
 * spark.io.compression.codec=zstd}): the plan scales LZ4's fit by {@link ShuffleCodec#ZSTD_FACTOR}
 * where it was measured.
 */
@Tag("slow")
class PrepareDryRunZstdShuffleTest extends ShuffleCodecDryRunCheck {
  @Override
  Map<String, String> conf() {
    return Map.of("spark.io.compression.codec", "zstd");
  }

  @Override
  String note() {
    return "shuffle sizes for zstd";
  }
}
