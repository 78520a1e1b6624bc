package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.spark.PrepareResult;
import io.fanout.spark.generate.TypedGraphGenerator;
import io.fanout.spark.generate.TypedGraphLayout;
import io.fanout.spark.internal.Hooks;
import io.fanout.spark.internal.TaskTotals;
import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code prepare --dry-run} on typed graphs: the plan (per type and relation, weighted relations
 * with their weight files, from Parquet footers or from Spark counts) comes within 2x of the store
 * and shuffle bytes the run then writes, the dry run writes nothing, and a run whose disk lacks
 * room is refused before it writes.
 */
class TypedPrepareDryRunTest {
  static SparkSession spark;
  @TempDir static Path tmp;
  static TypedGraphGenerator gen;
  static Path graph;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("TypedPrepareDryRunTest");
    TypedGraphLayout layout =
        new TypedGraphLayout(
            List.of(
                new TypedGraphLayout.Type("paper", 5_000, 16),
                new TypedGraphLayout.Type("author", 2_500, 8),
                new TypedGraphLayout.Type("term", 200, 0)),
            List.of(
                new TypedGraphLayout.Relation("writes", 1, 0, 15_000, 0.8),
                new TypedGraphLayout.Relation("has_term", 2, 0, 5_000, 0.8)),
            0);
    gen = new TypedGraphGenerator(layout, 3, 5);
    graph = tmp.resolve("gen");
    gen.write(spark, 1, graph);
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static PrepareAction prepare(Path out) {
    return Fanout.get(spark)
        .prepare()
        .option("graph-spec", graph.resolve(TypedGraphGenerator.GRAPH_SPEC).toString())
        .option("add-reverse", "true")
        .option("feature-encoding", "author=int8")
        .option("partitions", "3")
        .output(out.toString());
  }

  @Test
  void planFromFootersIsWithinTwiceTheRun() {
    Path out = tmp.resolve("footers.store");
    PrepareResult dry = prepare(out).option("dry-run", "true").execute();
    assertThat(dry.dryRun()).isTrue();
    assertThat(out).doesNotExist();
    PreparePlan plan = dry.plan();
    assertThat(plan.toJson())
        .startsWith("{\"dry_run\":true,\"inputs\":{\"source\":\"parquet footers\",");
    assertThat(plan.partitions()).hasSize(3);
    assertThat(plan.partitions().stream().mapToLong(PreparePlan.Partition::vertices).sum())
        .isEqualTo(7_700);
    // two relations given, two reverses added: each reverse has its forward's rows
    assertThat(plan.partitions().stream().mapToLong(PreparePlan.Partition::edges).sum())
        .isEqualTo(2 * 20_000);
    assertThat(plan.storeBytesByKind()).containsKeys("nodes", "features", "idmap", "csr");
    assertThat(plan.describe())
        .contains("typed graph, 3 vertex types with 7,700 vertex rows, 4 relations")
        .contains("author")
        .contains("8 features in int8")
        .contains("rev_writes")
        .contains("(added reverse)");
    assertThat(plan.fits()).isTrue();

    long shuffle;
    StoreManifest m;
    try (TaskTotals t = TaskTotals.start(spark.sparkContext())) {
      m = prepare(out).execute().manifest();
      shuffle = t.shuffleBytes();
    }
    long store = m.fileBytes();
    System.out.printf(
        "typed: store estimate %d %s, actual %d; shuffle estimate %d %s, actual %d%n",
        plan.storeBytes(),
        plan.storeBytesByKind(),
        store,
        plan.shuffleBytes(),
        plan.shuffleBytesByStep(),
        shuffle);
    assertThat((double) plan.storeBytes() / store).as("store bytes").isBetween(0.5, 2.0);
    assertThat((double) plan.shuffleBytes() / shuffle).as("shuffle bytes").isBetween(0.5, 2.0);
  }

  @Test
  void seedGroupsLayoutIsAStepOfThePlan() {
    Path out = tmp.resolve("layout.store");
    String step = TypedPrepareJob.LAYOUT_STEP + "seed-groups";
    PreparePlan without = prepare(out).option("dry-run", "true").execute().plan();
    assertThat(without.shuffleBytesByStep()).doesNotContainKey(step);
    assertThat(without.stages()).extracting(PreparePlan.Stage::step).doesNotContain(step);

    PreparePlan with =
        prepare(out)
            .option("dry-run", "true")
            .option("feature-layout", "seed-groups")
            .execute()
            .plan();
    assertThat(out).doesNotExist();
    assertThat(with.stages()).extracting(PreparePlan.Stage::step).contains(step);
    assertThat(with.describe()).contains(step);
    long layout = with.shuffleBytesByStep().get(step);
    // a run shuffled 149,745 bytes more with the layout than without: the estimate is an upper
    // bound (every paper a seed, no map-side combining);
    // reference: every vertex twice (a seed or a reached vertex per round) and every store edge
    // once (2 x 20,000: each relation and its reverse), each pair two raw longs
    long reference = 16L * (2 * 7_700 + 2 * 20_000);
    System.out.printf("typed layout: shuffle estimate %d, reference %d%n", layout, reference);
    assertThat(layout).isPositive();
    assertThat((double) layout / reference).as("layout shuffle").isBetween(0.25, 4.0);
    // the feature files are held twice while the step runs: paper's f32 and author's int8 rows
    long featureFiles =
        StoreLayout.HEADER_BYTES * 3 + 5_000L * 16 * 4 + StoreLayout.HEADER_BYTES * 3 + 2_500L * 8;
    assertThat(outputNeed(with) - outputNeed(without)).isEqualTo(featureFiles);
    assertThat(with.shuffleBytes() - without.shuffleBytes()).isEqualTo(layout);
  }

  @Test
  void neighborhoodLayoutIsAStepOfThePlanWithOnePairMoreForEachEdgeFromAFeaturedType() {
    Path out = tmp.resolve("nbr.store");
    String step = TypedPrepareJob.LAYOUT_STEP + "neighborhood";
    PreparePlan seedGroups =
        prepare(out)
            .option("dry-run", "true")
            .option("feature-layout", "seed-groups")
            .execute()
            .plan();
    PreparePlan with =
        prepare(out)
            .option("dry-run", "true")
            .option("feature-layout", "neighborhood")
            .execute()
            .plan();
    assertThat(out).doesNotExist();
    assertThat(with.stages()).extracting(PreparePlan.Stage::step).contains(step);
    assertThat(with.describe()).contains(step);
    long sg = seedGroups.shuffleBytesByStep().get(TypedPrepareJob.LAYOUT_STEP + "seed-groups");
    assertThat(with.shuffleBytesByStep().get(step)).isGreaterThan(sg);
    assertThat(outputNeed(with)).isEqualTo(outputNeed(seedGroups));
    // the regrouping round: a pair per edge whose source type has features; of writes
    // (author > paper), rev_writes and rev_has_term (paper > author, term), not has_term
    List<TypedLayoutPlanner.Type> types =
        List.of(
            new TypedLayoutPlanner.Type("paper", 5_000, 1, 1),
            new TypedLayoutPlanner.Type("author", 2_500, 1, 1),
            new TypedLayoutPlanner.Type("term", 200, 0, 1));
    List<TypedLayoutPlanner.Relation> rels =
        List.of(
            new TypedLayoutPlanner.Relation("author", "paper", 15_000),
            new TypedLayoutPlanner.Relation("term", "paper", 5_000),
            new TypedLayoutPlanner.Relation("paper", "author", 15_000),
            new TypedLayoutPlanner.Relation("paper", "term", 5_000));
    assertThat(
            TypedLayoutPlanner.pairs(types, rels, "paper", FeatureLayoutKind.NEIGHBORHOOD)
                - TypedLayoutPlanner.pairs(types, rels, "paper", FeatureLayoutKind.SEED_GROUPS))
        .isEqualTo(35_000);
  }

  /** What the plan needs on the output's disk besides Spark's shuffle files. */
  private static long outputNeed(PreparePlan plan) {
    PreparePlan.Disk d = plan.disks().get(0);
    assertThat(d.role()).startsWith("output");
    return d.needBytes() - (d.role().contains("shuffle") ? plan.shuffleBytes() : 0);
  }

  @Test
  void planOfDataFramesCountsTheirRows() {
    Path out = tmp.resolve("frames.store");
    PrepareResult dry =
        Fanout.get(spark)
            .prepare()
            .vertices("paper", gen.vertices(spark, 1, 0))
            .vertices("author", gen.vertices(spark, 1, 1))
            .vertices("term", gen.vertices(spark, 1, 2))
            .edges(
                "writes",
                "author",
                "paper",
                gen.edges(spark, 1, 0).withColumn("w", org.apache.spark.sql.functions.lit(0.5f)))
            .option("weight-column", "w")
            .edges("has_term", "term", "paper", gen.edges(spark, 1, 1))
            .option("dry-run", "true")
            .output(out.toString())
            .execute();
    PreparePlan plan = dry.plan();
    assertThat(out).doesNotExist();
    assertThat(plan.toJson()).contains("\"source\":\"counted by spark\"");
    // one automatic partition per type at this size; no reverses without --add-reverse
    assertThat(plan.partitions()).hasSize(1);
    assertThat(plan.partitions().get(0).vertices()).isEqualTo(7_700);
    assertThat(plan.partitions().get(0).edges()).isEqualTo(20_000);
    assertThat(plan.describe()).contains("paper").contains("16 features in f32");
    // only writes has the column: its CSR parts get a weight file, has_term's do not
    assertThat(plan.describe()).contains("15,000 edges, weighted").contains("5,000 edges\n");
    assertThat(plan.storeBytesByKind().get("weights"))
        .isEqualTo(StoreLayout.HEADER_BYTES + 4 * 15_000L);
  }

  @Test
  void refusesToStartWhenTheDiskLacksSpace() {
    Path out = tmp.resolve("full-disk.store");
    spark.conf().set(Hooks.FREE_SPACE_PROBE, PrepareDryRunTest.AlmostFullDisk.class.getName());
    try {
      assertThatThrownBy(() -> prepare(out).execute())
          .isInstanceOf(FanoutConfigException.class)
          .hasMessageContaining("not enough free disk space")
          .hasMessageContaining("(" + PrepareDryRunTest.AlmostFullDisk.FREE + " bytes) free")
          .hasMessageContaining("--skip-space-check");
      assertThat(out).doesNotExist();
      assertThat(prepare(out).option("dry-run", "true").execute().plan().describe())
          .contains("NOT ENOUGH");
    } finally {
      spark.conf().unset(Hooks.FREE_SPACE_PROBE);
    }
  }
}
