package io.fanout.jobs.store;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.cli.CliRun.Result;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code generate --types ... --relations ...} through the command line: a table per type and
 * relation with the counts asked for, the same tables whatever the number of tasks, a graph
 * description {@code prepare --graph-spec} accepts, and bad layouts refused with one line.
 */
class TypedGenerateCommandTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  static final String TYPES = "paper:600:8,author:300:0,venue:40:4";
  static final String RELATIONS = "writes=author>paper:2000,paper>paper:3000:0,venue>paper:600";

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("TypedGenerateCommandTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static Result generate(Path out, String tasks, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "generate",
                "--output",
                out.toString(),
                "--types",
                TYPES,
                "--relations",
                RELATIONS,
                "--classes",
                "3",
                "--seed",
                "5",
                "--tasks",
                tasks));
    args.addAll(List.of(more));
    return cli(args);
  }

  private Dataset<Row> table(Path dir, String path) {
    return spark.read().parquet(dir.resolve(path).toString());
  }

  @Tag("slow")
  @Test
  void writesATypedGraphThatPrepareAccepts() throws Exception {
    Path d = tmp.resolve("gen");
    Result g = generate(d, "3");
    assertThat(g.code()).as(g.err()).isZero();
    JsonNode summary = new ObjectMapper().readTree(g.out());
    assertThat(summary.get("vertices").asLong()).isEqualTo(940);
    assertThat(summary.get("edges").asLong()).isEqualTo(5600);
    assertThat(summary.get("target_type").asText()).isEqualTo("paper");

    assertThat(table(d, "vertices/paper.parquet").schema().simpleString())
        .isEqualTo("struct<id:bigint,label:int,split:string,features:array<float>>");
    assertThat(table(d, "vertices/author.parquet").schema().simpleString())
        .isEqualTo("struct<id:bigint>");
    assertThat(table(d, "vertices/venue.parquet").schema().simpleString())
        .isEqualTo("struct<id:bigint,features:array<float>>");
    assertThat(table(d, "vertices/paper.parquet").count()).isEqualTo(600);
    assertThat(table(d, "vertices/author.parquet").count()).isEqualTo(300);
    assertThat(table(d, "edges/writes.parquet").count()).isEqualTo(2000);
    assertThat(table(d, "edges/paper_paper.parquet").count()).isEqualTo(3000);
    assertThat(table(d, "edges/venue_paper.parquet").count()).isEqualTo(600);
    assertThat(table(d, "edges/writes.parquet").where("src >= 300 OR dst >= 600").count()).isZero();
    // homophily 0.8 (the default) against 0: the share of edges inside one community
    double writes = table(d, "edges/writes.parquet").where("src % 3 = dst % 3").count() / 2000.0;
    double cites =
        table(d, "edges/paper_paper.parquet").where("src % 3 = dst % 3").count() / 3000.0;
    assertThat(writes).isGreaterThan(0.8);
    assertThat(cites).isLessThan(0.6);

    // the same tables whatever the number of tasks
    Path again = tmp.resolve("gen2");
    assertThat(generate(again, "2").code()).isZero();
    for (String t :
        List.of(
            "vertices/paper.parquet",
            "vertices/author.parquet",
            "vertices/venue.parquet",
            "edges/writes.parquet",
            "edges/paper_paper.parquet",
            "edges/venue_paper.parquet")) {
      assertThat(table(again, t).exceptAll(table(d, t)).count()).as(t).isZero();
    }
    assertThat(Files.readString(again.resolve("graph.json")))
        .isEqualTo(Files.readString(d.resolve("graph.json")));

    // an existing graph is kept unless --overwrite
    Result kept = generate(d, "2");
    assertThat(kept.code()).isNotZero();
    assertThat(kept.err()).contains("pass --overwrite");

    Path store = tmp.resolve("store");
    Result p =
        cli(
            "prepare",
            "--graph-spec",
            d.resolve("graph.json").toString(),
            "--output",
            store.toString());
    assertThat(p.code()).as(p.err()).isZero();
    Result i = cli("inspect", store.toString());
    assertThat(i.code()).as(i.err()).isZero();
    JsonNode s = new ObjectMapper().readTree(i.out());
    assertThat(s.get("typed").asBoolean()).isTrue();
    assertThat(s.get("vertices").asLong()).isEqualTo(940);
    assertThat(s.get("types").get(0).get("name").asText()).isEqualTo("paper");
    assertThat(s.get("types").get(0).get("classes").asInt()).isEqualTo(3);
    assertThat(s.get("types").get(0).get("feature_dim").asInt()).isEqualTo(8);
    assertThat(s.get("types").get(1).get("feature_dim").asInt()).isZero();
    assertThat(s.get("relations").get(0).get("name").asText()).isEqualTo("writes");
  }

  @Test
  void badLayoutsAreRefusedWithOneLine() {
    Result r =
        cli(
            "generate",
            "--output",
            tmp.resolve("bad").toString(),
            "--types",
            "paper:10:4",
            "--relations",
            "writes=author>paper:5");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip())
        .contains("option 'relations': 'writes=author>paper:5': unknown type 'author'")
        .doesNotContain("\n");
    Result n =
        cli(
            "generate",
            "--output",
            tmp.resolve("bad2").toString(),
            "--types",
            "paper:10:4",
            "--relations",
            "paper>paper:5",
            "--num-vertices",
            "20");
    assertThat(n.code()).isEqualTo(2);
    assertThat(n.err()).contains("num-vertices");
    Result o = cli("generate", "--output", tmp.resolve("bad3").toString(), "--relations", "a>a:5");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).contains("option 'relations'").contains("give --types too");
  }
}
