package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.store.InvalidInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The graph description of a dataset folder's {@code schema.json} (the hgb_acm layout). */
class DatasetGraphSpecTest {
  @TempDir Path tmp;

  static final String SCHEMA =
      """
      {"name": "tiny", "node_types": [
         {"name": "paper", "file": "vertices/paper.parquet", "feature_dim": 4},
         {"name": "term", "file": "vertices/term.parquet", "feature_dim": 0}],
       "relations": [
         {"name": "paper_term", "src_type": "paper", "dst_type": "term",
          "file": "edges/paper_term.parquet", "reverse_of": "term_paper"},
         {"name": "term_paper", "src_type": "term", "dst_type": "paper",
          "file": "edges/term_paper.parquet", "reverse_of": "paper_term"}],
       "target_type": "paper", "task": "TASK", "label_column": "label"}
      """;

  @Test
  void readsTypesRelationsReversesAndTheTargetsLabels() throws Exception {
    Files.writeString(tmp.resolve("schema.json"), SCHEMA.replace("TASK", "single-label"));
    assertThat(DatasetGraphSpec.isTyped(tmp)).isTrue();
    GraphSpec s = DatasetGraphSpec.of(tmp);
    assertThat(s.types()).extracting(GraphSpec.TypeSpec::name).containsExactly("paper", "term");
    assertThat(s.types().get(0).path()).isEqualTo(tmp.resolve("vertices/paper.parquet").toString());
    assertThat(s.types().get(0).labelColumn()).isEqualTo("label");
    assertThat(s.types().get(1).labelColumn()).isNull();
    assertThat(s.relations().get(1).reverseOf()).isEqualTo("paper_term");
    assertThat(s.relations().get(0).dstType()).isEqualTo("term");

    Files.writeString(tmp.resolve("schema.json"), SCHEMA.replace("TASK", "multi-label"));
    GraphSpec m = DatasetGraphSpec.of(tmp);
    assertThat(m.types().get(0).labelColumn()).isNull();
    assertThat(m.types().get(0).labelsColumn()).isEqualTo("label");
  }

  @Test
  void aFolderWithoutTypesIsNotATypedDatasetAndBadSchemasAreNamed() throws Exception {
    assertThat(DatasetGraphSpec.isTyped(tmp)).isFalse();
    assertThatThrownBy(() -> DatasetGraphSpec.of(tmp))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("schema.json: missing");
    Files.writeString(
        tmp.resolve("schema.json"),
        SCHEMA.replace("TASK", "x").replace("\"dst_type\": \"term\",", ""));
    assertThatThrownBy(() -> DatasetGraphSpec.of(tmp))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("key \"dst_type\" is missing");
  }
}
