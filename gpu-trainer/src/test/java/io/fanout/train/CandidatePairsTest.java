package io.fanout.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.InvalidInputException;
import org.junit.jupiter.api.Test;

/** The range check pair scoring runs before it loads a model. */
class CandidatePairsTest {
  private static CandidatePairs pairs(int[] src, int[] dst) {
    long[] ids = new long[src.length];
    return CandidatePairs.ofNumbers(src, dst, "long", ids, ids);
  }

  @Test
  void firstOutsideNamesTheFirstPairOutsideEitherRange() {
    CandidatePairs p = pairs(new int[] {0, 2, 3, -1}, new int[] {4, 1, 5, 0});
    assertThat(p.firstOutside(4, 6)).isEqualTo(3); // a negative source
    assertThat(p.firstOutside(3, 6)).isEqualTo(2); // source 3 of 3
    assertThat(p.firstOutside(4, 5)).isEqualTo(2); // destination 5 of 5
    assertThat(p.firstOutside(4, 4)).isEqualTo(0); // destination 4 of 4
    assertThat(pairs(new int[] {0, 2}, new int[] {4, 1}).firstOutside(3, 5)).isEqualTo(-1);
    assertThat(pairs(new int[0], new int[0]).firstOutside(0, 0)).isEqualTo(-1);
  }

  @Test
  void requireInsideNamesThePairItsIdsAndTheRanges() {
    CandidatePairs p = pairs(new int[] {0, 2, 3}, new int[] {4, 1, 5});
    p.requireInside(4, 6, "dense ids", "unused");
    assertThatThrownBy(() -> p.requireInside(3, 6, "dense ids", "but g has vertices 0..2"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("candidate pair 2 has dense ids (3, 5) but g has vertices 0..2");
  }
}
