package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.spark.partition.HashPartitioner;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import scala.Tuple2;

class EdgeRouterTest {

  @Test
  void aBlockRoundTripsItsEdgesPartitionAndDirection() {
    long[] src = {Long.MIN_VALUE, -1, 0, Long.MAX_VALUE};
    long[] dst = {7, Long.MAX_VALUE, Long.MIN_VALUE, 0};
    byte[] block = EdgeBlocks.encode(12, true, src, dst, 4);
    assertThat(EdgeBlocks.rows(block)).isEqualTo(4);
    assertThat(EdgeBlocks.partition(block)).isEqualTo(12);
    assertThat(EdgeBlocks.reverse(block)).isTrue();
    long[] s = new long[EdgeBlocks.MAX_ROWS];
    long[] d = new long[EdgeBlocks.MAX_ROWS];
    assertThat(EdgeBlocks.read(block, s, d)).isEqualTo(4);
    assertThat(java.util.Arrays.copyOf(s, 4)).isEqualTo(src);
    assertThat(java.util.Arrays.copyOf(d, 4)).isEqualTo(dst);
    assertThat(EdgeBlocks.reverse(EdgeBlocks.encode(0, false, src, dst, 1))).isFalse();
  }

  @Test
  void blocksOfNoEdgesOrTooManyAndCutBlocksAreRefused() {
    long[] big = new long[EdgeBlocks.MAX_ROWS + 1];
    assertThatThrownBy(() -> EdgeBlocks.encode(0, false, big, big, 0))
        .hasMessageContaining("1 to 1024 edges, not 0");
    assertThatThrownBy(() -> EdgeBlocks.encode(0, false, big, big, big.length))
        .hasMessageContaining("not 1025");
    byte[] block = EdgeBlocks.encode(3, false, new long[] {1, 2}, new long[] {3, 4}, 2);
    byte[] cut = java.util.Arrays.copyOf(block, block.length - 8);
    assertThatThrownBy(() -> EdgeBlocks.rows(cut))
        .hasMessageContaining("of 40 bytes says it holds 2 edges");
    assertThatThrownBy(() -> EdgeBlocks.rows(new byte[3])).hasMessageContaining("no header");
  }

  @Test
  void openBlocksStayWithinTheBufferForAnyPartitionCount() {
    assertThat(EdgeRouter.blockRows(1)).isEqualTo(EdgeBlocks.MAX_ROWS);
    assertThat(EdgeRouter.blockRows(20)).isEqualTo(EdgeBlocks.MAX_ROWS);
    for (int p : new int[] {200, 2000, 1 << 20}) {
      int rows = EdgeRouter.blockRows(p);
      assertThat(rows).isBetween(16, EdgeBlocks.MAX_ROWS);
      assertThat(2L * p * 16 * rows)
          .isLessThanOrEqualTo(Math.max(EdgeRouter.BUFFER_BYTES, 2L * p * 16 * 16));
    }
    assertThat(new EdgeRouter.ByPartition(7).getPartition(5)).isEqualTo(5);
    assertThat(new EdgeRouter.ByPartition(0).numPartitions()).isEqualTo(1);
  }

  /** Every edge, and its twin when undirected and not a self-loop, in a block of its partition. */
  @ParameterizedTest
  @CsvSource({
    "0, 3, true, false",
    "1, 3, true, true",
    "1, 1, false, true",
    "500, 7, true, true",
    "500, 7, false, false",
    "60000, 20, true, true",
    "60000, 200, false, true",
    "60000, 3000, true, false"
  })
  void everyEdgeReachesThePartitionOfItsDestinationOnce(
      int edges, int parts, boolean longIds, boolean undirected) {
    SplittableRandom r = new SplittableRandom(edges * 31L + parts);
    List<InternalRow> rows = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < edges; i++) {
      long s = longIds ? r.nextLong() : r.nextInt(-1000, 1000);
      long d = i % 11 == 0 ? s : longIds ? r.nextLong() : r.nextInt(-1000, 1000);
      rows.add(
          longIds
              ? new GenericInternalRow(new Object[] {s, d})
              : new GenericInternalRow(new Object[] {(int) s, (int) d}));
      expected.add(s + ">" + d + ":f");
      if (undirected && s != d) {
        expected.add(d + ">" + s + ":r");
      }
    }
    Iterator<Tuple2<Integer, byte[]>> blocks =
        new EdgeRouter(parts, longIds, undirected).call(rows.iterator());
    List<String> got = new ArrayList<>();
    long[] s = new long[EdgeBlocks.MAX_ROWS];
    long[] d = new long[EdgeBlocks.MAX_ROWS];
    int misrouted = 0;
    while (blocks.hasNext()) {
      Tuple2<Integer, byte[]> b = blocks.next();
      int n = EdgeBlocks.rows(b._2());
      assertThat(n).isLessThanOrEqualTo(EdgeRouter.blockRows(parts));
      assertThat(EdgeBlocks.partition(b._2())).isEqualTo(b._1());
      EdgeBlocks.read(b._2(), s, d);
      for (int i = 0; i < n; i++) {
        if (HashPartitioner.partitionOf(d[i], longIds, parts) != b._1()) {
          misrouted++;
        }
        got.add(s[i] + ">" + d[i] + ":" + (EdgeBlocks.reverse(b._2()) ? "r" : "f"));
      }
    }
    assertThat(blocks.hasNext()).isFalse();
    assertThat(misrouted).isZero();
    java.util.Collections.sort(got);
    java.util.Collections.sort(expected);
    assertThat(got).isEqualTo(expected);
  }
}
