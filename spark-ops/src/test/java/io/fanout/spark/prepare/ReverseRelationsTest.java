package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which reverses a typed store gets: {@code --add-reverse} one for every relation without one,
 * {@code --undirected} one for every relation between two types without one, none for a relation
 * within one type, which it makes symmetric (its own reverse, also under {@code --add-reverse}).
 */
class ReverseRelationsTest {
  static TypedTables.RelationTable rel(String name, String src, String dst, String reverseOf) {
    return new TypedTables.RelationTable(
        name,
        src,
        dst,
        null,
        "relation '" + name + "'",
        false,
        null,
        "src",
        "dst",
        reverseOf,
        false,
        null);
  }

  static final List<TypedTables.RelationTable> GIVEN =
      List.of(
          rel("cites", "paper", "paper", null),
          rel("writes", "author", "paper", null),
          rel("written_by", "paper", "author", "writes"),
          rel("has_term", "paper", "term", null));

  static List<String> names(boolean add, boolean undirected) {
    return ReverseRelations.plan(GIVEN, add, undirected).stream()
        .map(TypedTables.RelationTable::name)
        .toList();
  }

  @Test
  void undirectedAddsTheReversesOfRelationsBetweenTwoTypesOnly() {
    assertThat(names(false, false)).containsExactly("cites", "writes", "written_by", "has_term");
    assertThat(names(true, false))
        .containsExactly("cites", "writes", "written_by", "has_term", "rev_cites", "rev_has_term");
    assertThat(names(false, true))
        .containsExactly("cites", "writes", "written_by", "has_term", "rev_has_term");
    assertThat(names(true, true))
        .containsExactly("cites", "writes", "written_by", "has_term", "rev_has_term");
    TypedTables.RelationTable rev = ReverseRelations.plan(GIVEN, false, true).get(4);
    assertThat(rev.srcType()).isEqualTo("term");
    assertThat(rev.dstType()).isEqualTo("paper");
    assertThat(rev.reverseOf()).isEqualTo("has_term");
    assertThat(rev.added()).isTrue();
  }

  @Test
  void onlyRelationsWithinOneTypeAreSymmetricAndOnlyWhenUndirected() {
    assertThat(GIVEN)
        .extracting(r -> ReverseRelations.symmetric(true, r))
        .containsExactly(true, false, false, false);
    assertThat(GIVEN).noneMatch(r -> ReverseRelations.symmetric(false, r));
  }
}
