package io.fanout.spark.partition;

import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.graph.PartitionerKind;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The names {@code --partitioner} accepts are the partitioners there are. */
class PartitionerNamesTest {
  @Test
  void theOptionListsEveryPartitioner() {
    assertThat(Arrays.stream(PartitionerKind.values()).map(PartitionerKind::id))
        .containsExactly(VertexPartitioners.names());
  }
}
