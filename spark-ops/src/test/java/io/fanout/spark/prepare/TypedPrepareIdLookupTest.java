package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --id-lookup task} on a typed graph (each relation's csr tasks look its endpoints up in the
 * id rank tables of its source and destination types) writes the bytes of {@code --id-lookup sql}
 * (Spark joins with the types' id maps): long and int id types, a relation between two id types,
 * self-loops dropped within a type, repeats deduplicated; {@code auto} takes it for the relations
 * of numeric types and joins those of a string-id type. A missing endpoint is reported as sql
 * reports it.
 */
class TypedPrepareIdLookupTest {
  static SparkSession spark;
  static final TypedGraphFixture G = new TypedGraphFixture(11);
  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("TypedPrepareIdLookupTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Papers (long ids) and terms (int ids) with cites and has_term, and their added reverses. */
  PrepareAction numeric(String name, String lookup, Dataset<Row> hasTerm) {
    return Fanout.get(spark)
        .prepare()
        .vertices("paper", G.papers(spark))
        .vertices("term", G.terms(spark))
        .edges("cites", "paper", "paper", G.cites(spark))
        .edges("has_term", "paper", "term", hasTerm)
        .option("add-reverse", "true")
        .option("dedupe", "true")
        .option("self-loops", "drop")
        .option("partitions", "3")
        .option("id-lookup", lookup)
        .output(tmp.resolve(name).toString());
  }

  /** The fixture's four relations, authors with string ids. */
  PrepareAction mixed(String name, String lookup) {
    return G.prepare(spark)
        .option("partitions", "2")
        .option("id-lookup", lookup)
        .output(tmp.resolve(name).toString());
  }

  /** has_term with one edge whose term is no term id, and one whose paper is no paper id. */
  Dataset<Row> hasTermWithMissing() {
    List<Row> rows = new ArrayList<>(G.hasTerm);
    rows.add(RowFactory.create((long) G.papers.get(0).getLong(0), 5000));
    rows.add(RowFactory.create(5001L, (int) G.terms.get(0).getInt(0)));
    return spark.createDataFrame(rows, TypedGraphFixture.PAPER_TERM);
  }

  @Test
  void taskWritesTheBytesOfSqlAndLeavesNoRankTables() throws IOException {
    StoreManifest task = numeric("task", "task", G.hasTerm(spark)).execute().manifest();
    numeric("sql", "sql", G.hasTerm(spark)).execute();
    PrepareEdgeSortTest.assertSameBytes(tmp.resolve("sql"), tmp.resolve("task"));
    assertThat(task.relations)
        .extracting(r -> r.name)
        .containsExactly("cites", "has_term", "rev_cites", "rev_has_term");
    assertThat(task.relations).allSatisfy(r -> assertThat(r.edges).isPositive());
    try (Stream<Path> files = Files.walk(tmp.resolve("task"))) {
      assertThat(files.map(Path::toString)).noneMatch(f -> f.contains(EndpointLookup.DIR));
    }
  }

  @Tag("slow")
  @Test
  void autoLooksUpNumericRelationsAndJoinsTheOthersToTheSameBytes() throws IOException {
    mixed("auto", "auto").execute();
    mixed("sql", "sql").execute();
    PrepareEdgeSortTest.assertSameBytes(tmp.resolve("sql"), tmp.resolve("auto"));
  }

  @Tag("slow")
  @Test
  void missingEndpointsAreDroppedOrReportedAsSqlReportsThem() throws IOException {
    StoreManifest task =
        numeric("task", "task", hasTermWithMissing())
            .option("dangling", "drop")
            .execute()
            .manifest();
    numeric("sql", "sql", hasTermWithMissing()).option("dangling", "drop").execute();
    PrepareEdgeSortTest.assertSameBytes(tmp.resolve("sql"), tmp.resolve("task"));
    // each missing edge is dropped from has_term and from its added reverse
    assertThat(task.droppedDanglingEdges).isEqualTo(4);

    String[] messages = new String[2];
    String[] modes = {"task", "sql"};
    for (int i = 0; i < 2; i++) {
      String mode = modes[i];
      Throwable t =
          org.assertj.core.api.Assertions.catchThrowable(
              () -> numeric("error-" + mode, mode, hasTermWithMissing()).execute());
      assertThat(t).isInstanceOf(InvalidInputException.class);
      messages[i] = t.getMessage();
      assertThat(tmp.resolve("error-" + mode).resolve("manifest.json")).doesNotExist();
    }
    assertThat(messages[0])
        .contains("relation 'has_term'")
        .contains("columns 'src'/'dst': 2 edge(s) with an endpoint that is not a vertex id")
        .contains("expected every endpoint in the vertex tables of types 'paper' and 'term'");
    // which of the two edges is the example depends on the tasks' order in both lookups
    assertThat(messages[0].replaceAll("e\\.g\\. edge [^;]*;", ""))
        .isEqualTo(messages[1].replaceAll("e\\.g\\. edge [^;]*;", ""));
    assertThat(messages[0]).containsAnyOf("edge 5001 -> ", " -> 5000;");
  }

  @Test
  void aMissingEndpointIsNamedInOriginalIdsByBothLookups() {
    List<Row> rows = new ArrayList<>(G.hasTerm);
    long paper = G.papers.get(0).getLong(0);
    rows.add(RowFactory.create(paper, 5000));
    Dataset<Row> oneMissing = spark.createDataFrame(rows, TypedGraphFixture.PAPER_TERM);
    for (String mode : new String[] {"task", "sql"}) {
      assertThatThrownBy(() -> numeric("one-" + mode, mode, oneMissing).execute())
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("relation 'has_term'")
          .hasMessageContaining("1 edge(s) with an endpoint that is not a vertex id")
          .hasMessageContaining("e.g. edge " + paper + " -> 5000;");
    }
  }

  @Test
  void taskIsRefusedNamingTheRelationWhereItCannotApply() {
    assertThatThrownBy(() -> mixed("refused", "task").execute())
        .isInstanceOf(io.fanout.conf.FanoutConfigException.class)
        .hasMessage(
            "--id-lookup task does not apply to relation 'writes': string ids of type 'author'"
                + " (the tables hold int or long ids); use --id-lookup auto (task where it"
                + " applies) or sql");
    assertThatThrownBy(
            () ->
                numeric("range", "task", G.hasTerm(spark)).option("partitioner", "range").execute())
        .isInstanceOf(io.fanout.conf.FanoutConfigException.class)
        .hasMessageContaining("--id-lookup task does not apply to --partitioner range");
    assertThat(tmp.resolve("refused")).doesNotExist();
    assertThat(tmp.resolve("range")).doesNotExist();
  }

  @Test
  void theDryRunPlansTheLookupPerRelation() {
    PreparePlan plan = mixed("dry", "auto").option("dry-run", "true").execute().plan();
    // cites and has_term (and their reverses) look up; writes and written_by (authors have
    // string ids) join
    for (String r : new String[] {"cites", "has_term", "rev_cites", "rev_has_term"}) {
      assertThat(plan.toJson())
          .containsPattern("\"relation\":\"" + r + "\"[^}]*\"id_lookup\":\"task\"");
    }
    for (String r : new String[] {"writes", "written_by"}) {
      assertThat(plan.toJson())
          .containsPattern("\"relation\":\"" + r + "\"[^}]*\"id_lookup\":\"sql\"");
    }
    assertThat(plan.describe()).contains("id rank tables of the types whose relations look");
    assertThat(tmp.resolve("dry")).doesNotExist();
  }
}
