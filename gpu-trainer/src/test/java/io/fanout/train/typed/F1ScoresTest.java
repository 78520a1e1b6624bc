package io.fanout.train.typed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** F1 scores against hand-computed references (scikit-learn's definitions). */
class F1ScoresTest {

  @Test
  void singleLabel() {
    // truth 0 0 1 2 2 2, predicted 0 1 1 2 2 0; class 3 never occurs, one row is unlabelled
    F1Scores f = new F1Scores(4, false);
    int[] truth = {0, 0, 1, 2, 2, 2, -1};
    int[] pred = {0, 1, 1, 2, 2, 0, 3};
    for (int i = 0; i < truth.length; i++) {
      f.add(truth[i], pred[i]);
    }
    // class 0: tp 1 fp 1 fn 1 -> 1/2; class 1: tp 1 fp 1 -> 2/3; class 2: tp 2 fn 1 -> 4/5
    assertThat(f.rows()).isEqualTo(6);
    assertThat(f.accuracy()).isCloseTo(4.0 / 6, within(1e-12));
    assertThat(f.microF1()).isCloseTo(4.0 / 6, within(1e-12));
    assertThat(f.macroF1()).isCloseTo((0.5 + 2.0 / 3 + 0.8) / 3, within(1e-12));
  }

  @Test
  void multiLabel() {
    // truth {0,1} {2} {0}, predicted {0} {1,2} {0}
    F1Scores f = new F1Scores(3, true);
    f.add(new int[] {0, 1, 2, 0}, 0, 2, new boolean[] {true, false, false});
    f.add(new int[] {0, 1, 2, 0}, 2, 3, new boolean[] {false, true, true});
    f.add(new int[] {0, 1, 2, 0}, 3, 4, new boolean[] {true, false, false});
    // class 0: tp 2 -> 1; class 1: fn 1 fp 1 -> 0; class 2: tp 1 -> 1; TP 3 FP 1 FN 1
    assertThat(f.microF1()).isCloseTo(6.0 / 8, within(1e-12));
    assertThat(f.macroF1()).isCloseTo(2.0 / 3, within(1e-12));
    assertThat(f.accuracy()).isCloseTo(1.0 / 3, within(1e-12));
  }

  @Test
  void multiLabelMacroCountsAbsentClassesAsZero() {
    F1Scores f = new F1Scores(2, true);
    f.add(new int[] {0}, 0, 1, new boolean[] {true, false});
    assertThat(f.macroF1()).isCloseTo(0.5, within(1e-12));
    assertThat(f.microF1()).isCloseTo(1.0, within(1e-12));
  }

  @Test
  void mergeAddsCounts() {
    F1Scores a = new F1Scores(2, false);
    F1Scores b = new F1Scores(2, false);
    a.add(0, 0);
    b.add(1, 0);
    a.merge(b);
    assertThat(a.rows()).isEqualTo(2);
    assertThat(a.accuracy()).isEqualTo(0.5);
  }
}
