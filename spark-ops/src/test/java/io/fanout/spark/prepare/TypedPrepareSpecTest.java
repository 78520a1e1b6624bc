package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.graph.TypedGraphStore;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.spark.PrepareResult;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreManifest;
import io.fanout.testing.JobCounts;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code prepare --graph-spec}: tables named by a JSON file, paths relative to it; a rerun with the
 * same inputs and options is skipped, with other options refused unless overwritten; and a graph of
 * one type and one relation, through the spec or the typed API, gives the store the one-table
 * prepare gives, byte for byte.
 */
class TypedPrepareSpecTest {
  static SparkSession spark;
  static final TypedGraphFixture G = new TypedGraphFixture(11);
  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("TypedPrepareSpecTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Writes the fixture's paper and term tables and two relations, and a spec naming them. */
  Path spec() throws IOException {
    Path data = tmp.resolve("data");
    G.papers(spark).write().parquet(data.resolve("vertices/paper").toString());
    G.terms(spark)
        .withColumnRenamed("id", "term_id")
        .write()
        .parquet(data.resolve("vertices/term").toString());
    G.cites(spark).write().parquet(data.resolve("edges/cites").toString());
    G.hasTerm(spark)
        .withColumnRenamed("dst", "term")
        .write()
        .parquet(data.resolve("edges/has_term").toString());
    Path spec = data.resolve("graph.json");
    Files.writeString(
        spec,
        """
        {
          "types": [
            {"name": "paper", "path": "vertices/paper", "label_column": "label"},
            {"name": "term", "path": "vertices/term", "format": "parquet", "id_column": "term_id"}
          ],
          "relations": [
            {"name": "cites", "src_type": "paper", "dst_type": "paper", "path": "edges/cites"},
            {"name": "has_term", "src_type": "paper", "dst_type": "term",
             "path": "edges/has_term", "dst_column": "term"}
          ]
        }
        """);
    return spec;
  }

  PrepareAction fromSpec(Path spec, Path out) {
    return Fanout.get(spark)
        .prepare()
        .option("graph-spec", spec.toString())
        .option("add-reverse", "true")
        .output(out.toString());
  }

  @Tag("slow")
  @Test
  void specIsPreparedRerunSkippedAndChangedOptionsRefused() throws IOException {
    Path spec = spec();
    Path out = tmp.resolve("store");
    PrepareResult first;
    try (JobCounts jobs = JobCounts.record(spark)) {
      first = fromSpec(spec, out).execute();
      // a guard on redundant actions: the 4 tables' schemas, 2 jobs (a shuffle map stage and its
      // result) for each type's vertex checks and vertex files, and per relation 2 for the edge
      // checks (none for an added reverse: its original passed them) and 1 for the csr files
      assertThat(jobs.jobs()).as(jobs.report()).isLessThanOrEqualTo(20);
    }
    assertThat(first.skipped()).isFalse();
    StoreManifest m = first.manifest();
    assertThat(m.types).extracting(t -> t.name).containsExactly("paper", "term");
    assertThat(m.types.get(0).vertices).isEqualTo(TypedGraphFixture.PAPERS);
    assertThat(m.types.get(1).vertices).isEqualTo(TypedGraphFixture.TERMS);
    assertThat(m.types.get(0).classes).isEqualTo(3);
    assertThat(m.relations)
        .extracting(r -> r.name)
        .containsExactly("cites", "has_term", "rev_cites", "rev_has_term");
    assertThat(m.relations.get(0).edges).isEqualTo(G.cites.size());
    try (TypedGraphStore g = TypedGraphStore.open(out, true)) {
      assertThat(g.schema().relation(3).srcType()).isEqualTo(1);
      assertThat(g.inNeighbors(3).numEdges()).isEqualTo(G.hasTerm.size());
    }

    PrepareResult again = fromSpec(spec, out).execute();
    assertThat(again.skipped()).isTrue();
    assertThat(again.manifest().fingerprint()).isEqualTo(m.fingerprint());

    assertThatThrownBy(() -> fromSpec(spec, out).option("dedupe", "true").execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("another request")
        .hasMessageContaining("mode(\"overwrite\")");
    PrepareResult replaced =
        fromSpec(spec, out).option("dedupe", "true").mode("overwrite").execute();
    assertThat(replaced.skipped()).isFalse();
    assertThat(replaced.manifest().options).containsEntry("dedupe", "true");
  }

  @ParameterizedTest(name = "undirected {0}")
  @ValueSource(booleans = {false, true})
  void oneTypeGraphThroughTheTypedApiIsTheOneTableStoreByteForByte(boolean undirected)
      throws IOException {
    Path plain = tmp.resolve("plain");
    Path typed = tmp.resolve("typed");
    Fanout.get(spark)
        .prepare(G.papers(spark), G.cites(spark))
        .option("dedupe", "true")
        .option("undirected", Boolean.toString(undirected))
        .option("feature-encoding", "f16")
        .output(plain.toString())
        .execute();
    Fanout.get(spark)
        .prepare()
        .vertices("paper", G.papers(spark))
        .edges("cites", "paper", "paper", G.cites(spark))
        .option("dedupe", "true")
        .option("undirected", Boolean.toString(undirected))
        .option("feature-encoding", "paper=f16")
        .output(typed.toString())
        .execute();
    assertThat(tree(typed)).isEqualTo(tree(plain));
  }

  @Test
  void oneTypeGraphThroughTheSpecIsTheOneTableStoreByteForByte() throws IOException {
    Path data = tmp.resolve("one");
    G.papers(spark).write().parquet(data.resolve("v").toString());
    G.cites(spark).withColumnRenamed("src", "from").write().parquet(data.resolve("e").toString());
    Path spec = data.resolve("one.json");
    Files.writeString(
        spec,
        "{\"types\": [{\"name\": \"paper\", \"path\": \"v\"}], \"relations\": [{\"name\":"
            + " \"cites\", \"src_type\": \"paper\", \"dst_type\": \"paper\", \"path\": \"e\","
            + " \"src_column\": \"from\"}]}");
    Path plain = tmp.resolve("plain");
    Path typed = tmp.resolve("typed");
    Fanout.get(spark)
        .prepare()
        .option("vertices", data.resolve("v").toString())
        .option("edges", data.resolve("e").toString())
        .option("src-column", "from")
        .output(plain.toString())
        .execute();
    Fanout.get(spark)
        .prepare()
        .option("graph-spec", spec.toString())
        .output(typed.toString())
        .execute();
    assertThat(tree(typed)).isEqualTo(tree(plain));
  }

  @Test
  void oneTypeGraphWithLabelSetsTakesTheTypedPipeline() {
    Path out = tmp.resolve("multi");
    java.util.List<org.apache.spark.sql.Row> knows =
        java.util.List.of(
            org.apache.spark.sql.RowFactory.create("a1", "a2"),
            org.apache.spark.sql.RowFactory.create("a3", "a1"));
    StoreManifest m =
        Fanout.get(spark)
            .prepare()
            .vertices("author", G.authors(spark))
            .edges("knows", "author", "author", spark.createDataFrame(knows, G.AUTHOR_AUTHOR))
            .option("labels-column", "labels")
            .output(out.toString())
            .execute()
            .manifest();
    assertThat(m.typed()).isTrue();
    assertThat(m.types.get(0).multiLabel).isTrue();
    assertThat(m.relations.get(0).edges).isEqualTo(2);
  }

  /** Every file under {@code root} (relative path) with its bytes, as hex. */
  static Map<String, String> tree(Path root) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(root)) {
      for (Path p : s.filter(Files::isRegularFile).toList()) {
        out.put(
            root.relativize(p).toString(),
            java.util.HexFormat.of().formatHex(Files.readAllBytes(p)));
      }
    }
    assertThat(out.keySet()).contains("manifest.json");
    assertThat(out.keySet().stream().filter(k -> k.endsWith(".csr")).toList()).isNotEmpty();
    return out;
  }
}
