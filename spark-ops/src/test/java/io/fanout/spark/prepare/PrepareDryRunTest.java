package io.fanout.spark.prepare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConfigException;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareResult;
import io.fanout.spark.generate.GraphGenerator;
import io.fanout.spark.internal.Hooks;
import io.fanout.spark.internal.TaskTotals;
import io.fanout.store.StoreManifest;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code prepare --dry-run}: the plan, from Parquet footers, comes within 2x of what the real run
 * then writes (store bytes from the manifest, shuffle bytes from Spark's task metrics), and the dry
 * run itself writes nothing.
 */
class PrepareDryRunTest {
  static SparkSession spark;
  @TempDir static Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("PrepareDryRunTest");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void generatedGraphPlanIsWithinTwiceTheRun() {
    compareGenerated(spark, tmp);
  }

  @Test
  void coraPlanIsWithinTwiceTheRun() {
    compareCora(spark, tmp);
  }

  /** {@link #compare} on a generated graph with random float features; returns its plan. */
  static PreparePlan compareGenerated(SparkSession spark, Path tmp) {
    GraphGenerator g = new GraphGenerator(20_000, 100_000, 16, 5, 3, 0.5);
    Path in = tmp.resolve("gen");
    g.write(spark, 2, in.resolve("v.parquet").toString(), in.resolve("e.parquet").toString());
    return compare(
        spark,
        tmp,
        "generated",
        in.resolve("v.parquet"),
        in.resolve("e.parquet"),
        "4",
        20_000,
        100_000);
  }

  /** {@link #compare} on cora (0/1 features); returns its plan. */
  static PreparePlan compareCora(SparkSession spark, Path tmp) {
    Path ds = SparkTestSession.dataset("cora");
    return compare(
        spark,
        tmp,
        "cora",
        ds.resolve("vertices.parquet"),
        ds.resolve("edges.parquet"),
        "8",
        2708,
        5429);
  }

  /**
   * Plans, then prepares, {@code vertices} and {@code edges} into {@code tmp/NAME.store} and checks
   * the plan's store and shuffle bytes against the run's (within 2x); returns the plan.
   */
  static PreparePlan compare(
      SparkSession spark,
      Path tmp,
      String name,
      Path vertices,
      Path edges,
      String parts,
      long v,
      long e) {
    Path out = tmp.resolve(name + ".store");
    PrepareResult dry =
        prepare(spark, vertices, edges, parts, out).option("dry-run", "true").execute();
    PreparePlan plan = dry.plan();
    assertThat(dry.dryRun()).isTrue();
    assertThat(out).doesNotExist();
    assertThat(dry.toJson()).startsWith("{\"dry_run\":true,");
    assertThat(plan.partitions()).hasSize(Integer.parseInt(parts));
    assertThat(plan.partitions().stream().mapToLong(PreparePlan.Partition::vertices).sum())
        .isEqualTo(v);
    assertThat(plan.fits()).isTrue();

    long shuffle;
    PrepareResult real;
    try (TaskTotals s = TaskTotals.start(spark.sparkContext())) {
      real = prepare(spark, vertices, edges, parts, out).execute();
      shuffle = s.shuffleBytes();
    }
    StoreManifest m = real.manifest();
    long store = m.fileBytes();
    System.out.printf(
        "%s: store estimate %d, actual %d (%.2fx); shuffle estimate %d %s, actual %d (%.2fx)%n",
        name,
        plan.storeBytes(),
        store,
        (double) plan.storeBytes() / store,
        plan.shuffleBytes(),
        plan.shuffleBytesByStep(),
        shuffle,
        (double) plan.shuffleBytes() / shuffle);
    assertThat(m.vertices).isEqualTo(v);
    assertThat(ratio(plan.storeBytes(), store)).as("store bytes").isBetween(0.5, 2.0);
    assertThat(ratio(plan.shuffleBytes(), shuffle)).as("shuffle bytes").isBetween(0.5, 2.0);
    assertThat(Files.exists(out.resolve("manifest.json"))).isTrue();
    return plan;
  }

  @Test
  void refusesToStartWhenTheDiskLacksSpace() {
    Path ds = SparkTestSession.dataset("cora");
    Path out = tmp.resolve("full-disk.store");
    spark.conf().set(Hooks.FREE_SPACE_PROBE, AlmostFullDisk.class.getName());
    try {
      assertThatThrownBy(
              () ->
                  prepare(
                          spark,
                          ds.resolve("vertices.parquet"),
                          ds.resolve("edges.parquet"),
                          "2",
                          out)
                      .execute())
          .isInstanceOf(FanoutConfigException.class)
          .hasMessageContaining("not enough free disk space")
          .hasMessageContaining(tmp.toString())
          .hasMessageContaining("(" + AlmostFullDisk.FREE + " bytes) free")
          .hasMessageContaining("--skip-space-check");
      assertThat(out).doesNotExist();

      // DataFrames not read from Parquet files: checked once validation counted the rows
      GraphGenerator g = new GraphGenerator(5_000, 10_000, 64, 3, 1, 0.5);
      Path frames = tmp.resolve("frames.store");
      assertThatThrownBy(
              () ->
                  Fanout.get(spark)
                      .prepare(g.vertices(spark, 2), g.edges(spark, 2))
                      .output(frames.toString())
                      .execute())
          .isInstanceOf(FanoutConfigException.class)
          .hasMessageContaining("not enough free disk space");
      assertThat(frames.resolve("manifest.json")).doesNotExist();

      PrepareResult dry =
          prepare(spark, ds.resolve("vertices.parquet"), ds.resolve("edges.parquet"), "2", out)
              .option("dry-run", "true")
              .execute();
      assertThat(dry.plan().fits()).isFalse();
      assertThat(dry.plan().describe()).contains("NOT ENOUGH");

      PrepareResult forced =
          prepare(spark, ds.resolve("vertices.parquet"), ds.resolve("edges.parquet"), "2", out)
              .option("skip-space-check", "true")
              .execute();
      assertThat(forced.manifest().vertices).isEqualTo(2708);
    } finally {
      spark.conf().unset(Hooks.FREE_SPACE_PROBE);
    }
  }

  /** A disk with 1 MB free, whatever it is. */
  public static final class AlmostFullDisk implements FreeSpaceProbe {
    static final long FREE = 1_000_000;

    @Override
    public long usableBytes(Path dir) {
      return FREE;
    }
  }

  private static double ratio(long estimate, long actual) {
    return (double) estimate / actual;
  }

  private static io.fanout.spark.PrepareAction prepare(
      SparkSession spark, Path vertices, Path edges, String parts, Path out) {
    return Fanout.get(spark)
        .prepare()
        .option("vertices", vertices.toString())
        .option("edges", edges.toString())
        .option("undirected", "true")
        .option("partitions", parts)
        .output(out.toString());
  }
}
