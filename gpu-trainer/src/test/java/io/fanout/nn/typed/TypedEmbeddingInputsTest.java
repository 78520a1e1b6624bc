package io.fanout.nn.typed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.TypedSchema;
import io.fanout.nn.EmbeddingMode;
import io.fanout.store.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which types of a typed model read a learned table, per {@code --learned-embeddings} mode: on the
 * small graph of {@link TypedTestGraphs} (paper and author with features, term without).
 */
class TypedEmbeddingInputsTest {
  private static final TypedSchema SCHEMA = TypedTestGraphs.small(3).schema();

  private static List<String> embedded(TypedModelConfig cfg) {
    List<String> names = new ArrayList<>();
    for (TypedModelConfig.TypeInput t : cfg.types()) {
      if (t.embedded()) {
        names.add(t.name());
      }
    }
    return names;
  }

  private static TypedModelConfig node(EmbeddingMode mode) {
    return TypedModelConfig.of(SCHEMA, 0, TypedModelKind.HGN, 4, 2, 0f, 0, mode);
  }

  private static TypedModelConfig link(String relation, EmbeddingMode mode) {
    return TypedModelConfig.ofLink(
        SCHEMA, SCHEMA.relationIndex(relation), TypedModelKind.RGCN, 4, 2, 0f, 0, mode);
  }

  @Test
  void eachModeEmbedsItsTypesForNodeClassification() {
    assertThat(embedded(node(EmbeddingMode.AUTO))).containsExactly("term");
    assertThat(embedded(node(EmbeddingMode.ALL))).containsExactly("paper", "author", "term");
    assertThat(embedded(node(EmbeddingMode.NON_TARGET))).containsExactly("author", "term");
    assertThatThrownBy(() -> node(EmbeddingMode.OFF))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("vertex type 'term' has no features and --learned-embeddings off");
  }

  @Test
  void nonTargetKeepsTheFeaturesOfBothEndsOfTheLinkRelation() {
    assertThat(embedded(link("writes", EmbeddingMode.NON_TARGET))).containsExactly("term");
    assertThat(embedded(link("cites", EmbeddingMode.NON_TARGET))).containsExactly("author", "term");
    // an end without features has nothing to keep: refused, naming the type and the mode
    assertThatThrownBy(() -> link("has_term", EmbeddingMode.NON_TARGET))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(
            "vertex type 'term' has no features and --learned-embeddings non-target reads its"
                + " features");
  }

  @Test
  void aOneTypeStoreIsItsOwnTargetSoNonTargetEmbedsNothing() {
    assertThat(EmbeddingMode.NON_TARGET.embeds(5, true)).isFalse();
    assertThat(EmbeddingMode.NON_TARGET.embeds(0, true)).isFalse();
    assertThat(EmbeddingMode.NON_TARGET.embeds(5, false)).isTrue();
    assertThat(EmbeddingMode.AUTO.embeds(0, true)).isTrue();
  }
}
