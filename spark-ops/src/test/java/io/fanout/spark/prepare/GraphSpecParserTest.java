package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.options.TableFormat;
import io.fanout.store.InvalidInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The graph description of {@code prepare --graph-spec}: what it reads and every refusal. */
class GraphSpecParserTest {
  static final Path BASE = Path.of("/data/acm");
  @TempDir Path tmp;

  static GraphSpec parse(String json) {
    return GraphSpecParser.parse("g.json", json.replace('\'', '"'), BASE);
  }

  static void refused(String json, String... fragments) {
    var t =
        assertThatThrownBy(() -> parse(json))
            .isInstanceOf(InvalidInputException.class)
            .hasMessageStartingWith("g.json: ");
    for (String f : fragments) {
      t.hasMessageContaining(f);
    }
  }

  static final String TYPES =
      "'types': [{'name': 'paper', 'path': 'v/paper.parquet'}, {'name': 'term', 'path':"
          + " '/abs/term.csv', 'format': 'csv', 'id_column': 'tid'}]";

  @Test
  void readsTypesAndRelationsResolvingPathsAgainstTheFile() {
    GraphSpec s =
        parse(
            "{'format': 'parquet', "
                + TYPES
                + ", 'relations': [{'name': 'paper_term', 'src_type': 'paper', 'dst_type':"
                + " 'term', 'path': 'e/pt', 'src_column': 'p', 'dst_column': 't'}, {'name':"
                + " 'term_paper', 'src_type': 'term', 'dst_type': 'paper', 'path': 'e/tp',"
                + " 'reverse_of': 'paper_term', 'weight_column': 'w'}]}");
    assertThat(s.types()).hasSize(2);
    GraphSpec.TypeSpec paper = s.types().get(0);
    assertThat(paper.path()).isEqualTo("/data/acm/v/paper.parquet");
    assertThat(paper.format()).isEqualTo(TableFormat.PARQUET);
    assertThat(paper.idColumn()).isNull(); // the --id-column option then
    assertThat(paper.featuresColumn()).isNull();
    GraphSpec.TypeSpec term = s.types().get(1);
    assertThat(term.path()).isEqualTo("/abs/term.csv");
    assertThat(term.format()).isEqualTo(TableFormat.CSV);
    assertThat(term.idColumn()).isEqualTo("tid");
    GraphSpec.RelationSpec pt = s.relations().get(0);
    assertThat(pt.srcColumn()).isEqualTo("p");
    assertThat(pt.dstColumn()).isEqualTo("t");
    assertThat(pt.path()).isEqualTo("/data/acm/e/pt");
    assertThat(s.relations().get(1).reverseOf()).isEqualTo("paper_term");
    assertThat(pt.weightColumn()).isNull(); // the --weight-column option's, if the table has it
    assertThat(s.relations().get(1).weightColumn()).isEqualTo("w");
    assertThat(s.relationIndex("term_paper")).isEqualTo(1);
    assertThat(s.typeIndex("nope")).isEqualTo(-1);
  }

  @Test
  void formatDefaultsToTheOptionWhenNotGiven() {
    GraphSpec s =
        parse(
            "{"
                + TYPES
                + ", 'relations': [{'name': 'r', 'src_type': 'paper', 'dst_type': 'paper',"
                + " 'path': 'e'}]}");
    assertThat(s.types().get(0).format()).isNull();
    assertThat(s.relations().get(0).format()).isNull();
  }

  @Test
  void readsAFileAndNamesAMissingOne() throws Exception {
    Path f = tmp.resolve("spec.json");
    Files.writeString(
        f,
        "{\"types\": [{\"name\": \"a\", \"path\": \"a.parquet\"}], \"relations\": [{\"name\":"
            + " \"aa\", \"src_type\": \"a\", \"dst_type\": \"a\", \"path\": \"sub/aa\"}]}");
    GraphSpec s = GraphSpecParser.read(f);
    assertThat(s.relations().get(0).path()).isEqualTo(tmp.resolve("sub/aa").toString());
    assertThatThrownBy(() -> GraphSpecParser.read(tmp.resolve("none.json")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("none.json: no such graph description (--graph-spec)");
  }

  @Test
  void refusesBadJsonAndBadShapes() {
    refused("{'types': [", "not valid JSON");
    refused("[1]", "expected a JSON object");
    refused("{'relations': []}", "key \"types\": missing");
    refused("{" + TYPES + ", 'relations': []}", "key \"relations\": empty");
    refused("{" + TYPES + ", 'relations': {}}", "key \"relations\": not an array");
    refused("{'types': [3], 'relations': []}", "types[0]: expected a JSON object");
    refused(
        "{" + TYPES + ", 'relations': [], 'typos': 1}",
        "unknown key \"typos\"",
        "[format, relations, types]");
    refused(
        "{'types': [{'name': 'a', 'path': 'a'}, {'name': 'a', 'path': 'b'}], 'relations': []}",
        "type 'a': the type is named twice");
    refused(
        "{'types': [{'name': 'a', 'path': 'a', 'a': 1, 'a': 2}], 'relations': []}",
        "not valid JSON",
        "Duplicate field 'a'");
  }

  @Test
  void refusesEveryMistakeOfATypeNamingIt() {
    refused("{'types': [{'path': 'a'}], 'relations': []}", "types[0]: key \"name\" is missing");
    refused(
        "{'types': [{'name': '../x', 'path': 'a'}], 'relations': []}",
        "types[0]: key \"name\": '../x' is not a valid name");
    refused("{'types': [{'name': 'a'}], 'relations': []}", "type 'a': key \"path\" is missing");
    refused(
        "{'types': [{'name': 'a', 'path': 'a', 'label': 'y'}], 'relations': []}",
        "type 'a': unknown key \"label\"",
        "label_column");
    refused(
        "{'types': [{'name': 'a', 'path': 'a', 'format': 'orc'}], 'relations': []}",
        "type 'a': key \"format\": 'orc'");
    refused(
        "{'types': [{'name': 'a', 'path': 'a', 'id_column': 7}], 'relations': []}",
        "type 'a': key \"id_column\": expected a non-empty string, got 7");
    refused(
        "{'types': [{'name': 'a', 'path': 'a', 'id_column': ' '}], 'relations': []}",
        "type 'a': key \"id_column\": expected a non-empty string");
    refused(
        "{'types': [{'name': 'a', 'path': 'a', 'label_column': 'y', 'labels_column': 'ys'}],"
            + " 'relations': []}",
        "type 'a': has both \"label_column\"");
  }

  @Test
  void refusesEveryMistakeOfARelationNamingIt() {
    String head = "{" + TYPES + ", 'relations': [";
    refused(head + "{'src_type': 'paper'}]}", "relations[0]: key \"name\" is missing");
    refused(
        head + "{'name': 'r', 'dst_type': 'paper', 'path': 'e'}]}",
        "relation 'r': key \"src_type\" is missing");
    refused(
        head + "{'name': 'r', 'src_type': 'author', 'dst_type': 'paper', 'path': 'e'}]}",
        "relation 'r': key \"src_type\": unknown vertex type 'author'",
        "[paper, term]");
    refused(
        head + "{'name': 'r', 'src_type': 'paper', 'dst_type': 'venue', 'path': 'e'}]}",
        "relation 'r': key \"dst_type\": unknown vertex type 'venue'");
    refused(
        head + "{'name': 'r', 'src_type': 'paper', 'dst_type': 'paper'}]}",
        "relation 'r': key \"path\" is missing");
    refused(
        head
            + "{'name': 'r', 'src_type': 'paper', 'dst_type': 'paper', 'path': 'e', 'weight':"
            + " 'w'}]}",
        "relation 'r': unknown key \"weight\"");
    refused(
        head
            + "{'name': 'r', 'src_type': 'paper', 'dst_type': 'paper', 'path': 'e'}, {'name':"
            + " 'r', 'src_type': 'paper', 'dst_type': 'paper', 'path': 'f'}]}",
        "relation 'r': the relation is named twice");
  }

  @Test
  void refusesReversesThatAreNotFlips() {
    String head = "{" + TYPES + ", 'relations': [";
    String pt = "{'name': 'pt', 'src_type': 'paper', 'dst_type': 'term', 'path': 'e'}";
    refused(
        head
            + pt
            + ", {'name': 'tp', 'src_type': 'term', 'dst_type': 'paper', 'path': 'f',"
            + " 'reverse_of': 'nope'}]}",
        "relation 'tp': key \"reverse_of\": unknown relation 'nope'");
    refused(
        head + pt.replace("'path': 'e'", "'path': 'e', 'reverse_of': 'pt'") + "]}",
        "relation 'pt': key \"reverse_of\" names the relation itself");
    refused(
        head
            + pt
            + ", {'name': 'pp', 'src_type': 'paper', 'dst_type': 'paper', 'path': 'f',"
            + " 'reverse_of': 'pt'}]}",
        "relation 'pp': key \"reverse_of\": relation 'pt' runs from 'paper' to 'term'",
        "expected a relation from 'paper' to 'paper'");
    refused(
        head
            + "{'name': 'a', 'src_type': 'paper', 'dst_type': 'paper', 'path': 'e',"
            + " 'reverse_of': 'b'}, {'name': 'b', 'src_type': 'paper', 'dst_type': 'paper',"
            + " 'path': 'f', 'reverse_of': 'c'}, {'name': 'c', 'src_type': 'paper', 'dst_type':"
            + " 'paper', 'path': 'g'}]}",
        "relation 'a': key \"reverse_of\": relation 'b' is declared the reverse of 'c'");
  }

  @Test
  void anApiGraphIsCheckedAsAFileIs() {
    GraphSpec ok =
        new GraphSpec(
            java.util.List.of(
                new GraphSpec.TypeSpec("a", null, null, null, null, null, null, null)),
            java.util.List.of(
                new GraphSpec.RelationSpec("aa", "a", "a", null, null, null, null, null, null)));
    GraphSpecParser.check("prepare()", ok);
    GraphSpec unknown =
        new GraphSpec(
            ok.types(),
            java.util.List.of(
                new GraphSpec.RelationSpec("ab", "a", "b", null, null, null, null, null, null)));
    assertThatThrownBy(() -> GraphSpecParser.check("prepare()", unknown))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "prepare(): relation 'ab': unknown vertex type 'b'; give its vertices(\"b\", df)");
    assertThatThrownBy(
            () ->
                GraphSpecParser.check("prepare()", new GraphSpec(ok.types(), java.util.List.of())))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("needs at least one vertex type");
  }
}
