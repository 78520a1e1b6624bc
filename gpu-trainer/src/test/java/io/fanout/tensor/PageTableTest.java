package io.fanout.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** {@link PageTable}: pages in slot order, a gap allowed, each slot found in its page. */
class PageTableTest {
  @Test
  void slotsFallInTheirPagesAndPagesComeInSlotOrder() {
    PageTable t = new PageTable(8);
    assertThat(t.slots()).isZero();
    assertThat(t.add(0, 5 * 8)).isZero(); // slots 0-4
    assertThat(t.add(10, 3 * 8)).isEqualTo(1); // slots 10-12, after a gap
    assertThat(t.slots()).isEqualTo(13);
    assertThat(t.firsts()).containsExactly(0, 10);
    assertThat(t.pageOf(0)).isZero();
    assertThat(t.pageOf(4)).isZero();
    assertThat(t.pageOf(7)).isZero(); // in the gap: the page before it
    assertThat(t.pageOf(10)).isEqualTo(1);
    assertThat(t.pageOf(12)).isEqualTo(1);
    assertThat(t.first(1)).isEqualTo(10);
    assertThatThrownBy(() -> t.pageOf(13)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> t.pageOf(-1)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> t.add(12, 8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slot 12 after 13");
    assertThat(t.slots()).isEqualTo(13);
  }
}
