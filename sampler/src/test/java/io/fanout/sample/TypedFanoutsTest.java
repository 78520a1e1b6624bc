package io.fanout.sample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.TypedSchema;
import org.junit.jupiter.api.Test;

class TypedFanoutsTest {
  private static final TypedSchema S = TypedTestGraphs.acmLike(10, 5, 3, 20, 1).schema();

  @Test
  void namedDefaultAndPlainForms() {
    assertThat(TypedFanouts.parse("cites=10,5;has_term=5,3;*=2,1", S))
        .isDeepEqualTo(new int[][] {{10, 5}, {2, 1}, {2, 1}, {5, 3}});
    assertThat(TypedFanouts.parse("25,10", S))
        .isDeepEqualTo(new int[][] {{25, 10}, {25, 10}, {25, 10}, {25, 10}});
    assertThat(TypedFanouts.parse(" cites = -1 ; writes=0; written_by=3;has_term=1 ", S))
        .isDeepEqualTo(new int[][] {{-1}, {0}, {3}, {1}});
  }

  @Test
  void formatIsCanonicalAndParsesBack() {
    int[][] f = TypedFanouts.parse("cites=10,5;*=2,-1", S);
    String text = TypedFanouts.format(f, S);
    assertThat(text).isEqualTo("cites=10,5;writes=2,-1;written_by=2,-1;has_term=2,-1");
    assertThat(TypedFanouts.parse(text, S)).isDeepEqualTo(f);
  }

  @Test
  void oneClearErrorPerMistake() {
    assertThatThrownBy(() -> TypedFanouts.parse("cite=10,5;*=2,1", S))
        .hasMessage(
            "unknown relation 'cite'; the graph's relations are cites, writes, written_by,"
                + " has_term");
    assertThatThrownBy(() -> TypedFanouts.parse("cites=10,5;*=2", S))
        .hasMessage(
            "relation 'writes' has 1 hop(s) of fanouts but relation 'cites' has 2; every"
                + " relation needs the same number of hops");
    assertThatThrownBy(() -> TypedFanouts.parse("cites=10,5", S))
        .hasMessage("relation 'writes' has no fanouts; add 'writes=...' or '*=...'");
    assertThatThrownBy(() -> TypedFanouts.parse("cites=10,x;*=1,1", S))
        .hasMessage("relation 'cites': fanout 2 is 'x'; expected an integer >= 0 or -1 (all)");
    assertThatThrownBy(() -> TypedFanouts.parse("10,-2", S))
        .hasMessage("every relation: fanout 2 is -2; expected an integer >= 0 or -1 (all)");
    assertThatThrownBy(() -> TypedFanouts.parse("cites=1;cites=2;*=1", S))
        .hasMessage("relation 'cites' is given fanouts twice");
    assertThatThrownBy(() -> TypedFanouts.parse("cites=1;10", S))
        .hasMessage("entry '10' has no '='; expected 'relation=10,5' or '*=10,5'");
    assertThatThrownBy(() -> TypedFanouts.parse("*=", S))
        .hasMessage("the default '*' has no fanouts; expected a list such as 10,5");
    assertThatThrownBy(() -> TypedFanouts.parse(" ", S))
        .hasMessage("expected fanouts such as 'rel=10,5;*=10,5' or '10,5' for every relation");
  }

  @Test
  void checkTextRefusesWhatParseRefusesForAnyGraphAndLeavesTheNamesAndHopsToParse() {
    TypedFanouts.checkText("cite=10,5;*=2");
    TypedFanouts.checkText("10,-1,0");
    assertThatThrownBy(() -> TypedFanouts.checkText("cites=10,x;*=1,1"))
        .hasMessage("relation 'cites': fanout 2 is 'x'; expected an integer >= 0 or -1 (all)");
    assertThatThrownBy(() -> TypedFanouts.checkText("cites=1;cites=2"))
        .hasMessage("relation 'cites' is given fanouts twice");
    assertThatThrownBy(() -> TypedFanouts.checkText("cites=1;10"))
        .hasMessage("entry '10' has no '='; expected 'relation=10,5' or '*=10,5'");
    assertThatThrownBy(() -> TypedFanouts.checkText(""))
        .hasMessage("expected fanouts such as 'rel=10,5;*=10,5' or '10,5' for every relation");
  }
}
