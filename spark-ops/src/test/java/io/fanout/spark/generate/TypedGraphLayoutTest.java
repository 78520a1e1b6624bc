package io.fanout.spark.generate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import org.junit.jupiter.api.Test;

/** The {@code generate --types/--relations} syntax and the typed generator's pure row functions. */
class TypedGraphLayoutTest {
  private static TypedGraphLayout parse(String types, String relations, String target) {
    return TypedGraphLayout.parse(types, relations, target, 16, 0.8);
  }

  @Test
  void parsesTypesRelationsAndDefaults() {
    TypedGraphLayout l =
        parse(
            "paper:1000:64, author:500:0,term:20",
            "writes=author>paper:5000,paper>paper:8000:0.25,has=term>paper:0",
            "");
    assertThat(l.types())
        .containsExactly(
            new TypedGraphLayout.Type("paper", 1000, 64),
            new TypedGraphLayout.Type("author", 500, 0),
            new TypedGraphLayout.Type("term", 20, 16));
    assertThat(l.relations())
        .containsExactly(
            new TypedGraphLayout.Relation("writes", 1, 0, 5000, 0.8),
            new TypedGraphLayout.Relation("paper_paper", 0, 0, 8000, 0.25),
            new TypedGraphLayout.Relation("has", 2, 0, 0, 0.8));
    assertThat(l.target()).isZero();
    assertThat(l.numVertices()).isEqualTo(1520);
    assertThat(l.numEdges()).isEqualTo(13000);
    assertThat(parse("a:1,b:2", "a>b:3", "b").target()).isEqualTo(1);
  }

  @Test
  void refusesBadSpecsWithOneLine() {
    String[][] bad = {
      {"", "a>a:1", "", "option 'types': empty"},
      {"a:10,a:5", "a>a:1", "", "'a:5': type 'a' is named twice"},
      {"a", "a>a:1", "", "'a': expected name:count[:dim]"},
      {"a:0", "a>a:1", "", "'a:0': count 0; expected at least 1"},
      {"a:x", "a>a:1", "", "'a:x': count 'x' is not a whole number"},
      {"a:5:-1", "a>a:1", "", "dim -1; expected at least 0"},
      {"a b:5", "a>a:1", "", "name 'a b' is not"},
      {"a:5", "", "", "option 'relations': empty"},
      {"a:5", "a>b:1", "", "'a>b:1': unknown type 'b'; expected one of [a]"},
      {"a:5", "a-b:1", "", "expected [name=]src>dst:edges[:homophily]"},
      {"a:5", "r=a>a:1,r=a>a:2", "", "relation 'r' is named twice"},
      {"a:5", "a>a:1,a>a:2", "", "relation 'a_a' is named twice"},
      {"a:5", "a>a:-1", "", "edges -1; expected at least 0"},
      {"a:5", "a>a:1:1.5", "", "homophily '1.5'; expected 0 to 1"},
      {"a:5", "a>a:1,", "", "an empty entry"},
      {"a:5", "a>a:1", "b", "option 'target-type': 'b' is not one of --types [a]"},
    };
    for (String[] b : bad) {
      assertThatThrownBy(() -> parse(b[0], b[1], b[2]))
          .as(String.join(" | ", b))
          .isInstanceOf(FanoutConfigException.class)
          .hasMessageContaining(b[3])
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
  }

  @Test
  void edgesAreInRangeDeterministicAndFollowTheRelationsHomophily() {
    TypedGraphLayout l = parse("p:300:4,a:90:0", "a>p:4000:1,p>a:4000:0", "p");
    TypedGraphGenerator g = new TypedGraphGenerator(l, 3, 7);
    TypedGraphGenerator same = new TypedGraphGenerator(l, 3, 7);
    int[] agree = new int[2];
    for (int r = 0; r < 2; r++) {
      long ns = l.types().get(l.relations().get(r).src()).count();
      long nd = l.types().get(l.relations().get(r).dst()).count();
      for (long k = 0; k < 4000; k++) {
        long[] e = g.edge(r, k);
        assertThat(e).isEqualTo(same.edge(r, k));
        assertThat(e[0]).isBetween(0L, ns - 1);
        assertThat(e[1]).isBetween(0L, nd - 1);
        agree[r] += g.community(e[0]) == g.community(e[1]) ? 1 : 0;
      }
    }
    assertThat(agree[0]).isEqualTo(4000);
    assertThat(agree[1]).isBetween(900, 2200);
    assertThat(new TypedGraphGenerator(l, 3, 8).edge(0, 5)).isNotEqualTo(g.edge(0, 5));
  }

  @Test
  void theGraphDescriptionNamesEveryTableAndTheTargetsColumns() {
    TypedGraphLayout l = parse("p:3:4,a:9:0", "w=a>p:4", "p");
    String spec = new TypedGraphGenerator(l, 3, 7).graphSpec();
    assertThat(spec)
        .contains("\"path\" : \"vertices/p.parquet\"")
        .contains("\"label_column\" : \"label\"")
        .contains("\"split_column\" : \"split\"")
        .contains("\"path\" : \"edges/w.parquet\"")
        .contains("\"src_type\" : \"a\"");
    assertThat(spec.indexOf("label_column")).isEqualTo(spec.lastIndexOf("label_column"));
  }
}
