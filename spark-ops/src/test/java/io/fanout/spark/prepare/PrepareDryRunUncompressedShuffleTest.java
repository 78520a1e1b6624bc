package io.fanout.spark.prepare;

import java.util.Map;
import org.junit.jupiter.api.Tag;

/**
 * {@code prepare --dry-run} with shuffle files not compressed ({@code
 * spark.shuffle.compress=false}): the plan counts the rows at their raw width (LZ4's fit would be
 * about 3x too low).
 */
@Tag("slow")
class PrepareDryRunUncompressedShuffleTest extends ShuffleCodecDryRunCheck {
  @Override
  Map<String, String> conf() {
    return Map.of("spark.shuffle.compress", "false");
  }

  @Override
  String note() {
    return "shuffle files are not compressed";
  }
}
