package io.fanout.spark.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.conf.options.PrepareOptions;
import org.junit.jupiter.api.Test;

/** The names {@code --partitioner} accepts are the partitioners there are. */
class PartitionerNamesTest {
  @Test
  void theOptionListsEveryPartitioner() {
    assertThat(PrepareOptions.PARTITIONERS).containsExactly(VertexPartitioners.names());
  }
}
