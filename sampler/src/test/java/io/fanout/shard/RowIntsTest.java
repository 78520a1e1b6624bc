package io.fanout.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.sample.LinkPairs;
import io.fanout.store.InvalidInputException;
import org.junit.jupiter.api.Test;

/** The int32 columns both shard codecs share: bytes, pairs and the error naming row and column. */
class RowIntsTest {
  private static final RowInts.Row ROW = new RowInts.Row("typed shard row", 2, 7);

  @Test
  void intsRoundTripAsLittleEndianInt32() {
    int[] v = {0, -1, 258, Integer.MIN_VALUE};
    byte[] b = RowInts.encode(v);
    assertThat(b).startsWith(0, 0, 0, 0, -1, -1, -1, -1, 2, 1, 0, 0);
    assertThat(RowInts.decode(ROW, ShardSchema.NODES, b, 4)).containsExactly(v);
    assertThat(RowInts.decode(ROW, ShardSchema.NODES, b, -1)).containsExactly(v);
  }

  @Test
  void aColumnOfTheWrongLengthNamesRowAndColumn() {
    assertThatThrownBy(() -> RowInts.decode(ROW, ShardSchema.NODES, new byte[8], 3))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "typed shard row (epoch 2, batch 7): column 'nodes' has 8 bytes; expected 12 (3 int32)");
    assertThatThrownBy(() -> RowInts.decode(ROW, ShardSchema.NODES, new byte[6], -1))
        .hasMessageEndingWith("has 6 bytes; expected a multiple of 4");
    assertThatThrownBy(() -> RowInts.decode(ROW, ShardSchema.NODES, null, -1))
        .hasMessageEndingWith("has no bytes; expected a multiple of 4");
  }

  @Test
  void pairsSplitIntoSourcesDestinationsAndLabels() {
    LinkPairs p = new LinkPairs(new int[] {0, 1}, new int[] {3, 2}, new int[] {1, 0});
    int[][] back = RowInts.decodePairs(ROW, RowInts.encodePairs(p));
    assertThat(back[0]).containsExactly(0, 1);
    assertThat(back[1]).containsExactly(3, 2);
    assertThat(back[2]).containsExactly(1, 0);
    assertThatThrownBy(() -> RowInts.decodePairs(ROW, RowInts.encode(new int[] {0, 1})))
        .hasMessageEndingWith("column 'pairs' has 2 int32; expected src, dst, label per pair");
  }
}
