package io.fanout.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.options.SampleOptions;
import io.fanout.spark.generate.GraphGenerator;
import io.fanout.spark.internal.JobLabels;
import io.fanout.spark.sample.SampleJob;
import io.fanout.store.InvalidInputException;
import io.fanout.testing.SparkTestSession;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Spark job that prepare, sample (both modes) and generate start carries the description
 * {@code "fanout <stage>: <step> (i/n)"} and a job group, and the calling thread's labels are
 * restored afterwards.
 */
class JobLabelsTest {
  private static final Pattern LABEL =
      Pattern.compile("fanout ([a-z-]+): (.+) \\((\\d+)/(\\d+)\\)");

  static SparkSession spark;
  static SparkContext sc;
  static final JobRecorder jobs = new JobRecorder();
  @TempDir static Path tmp;

  /** The labels of one started job, from its properties. */
  record Job(int id, String description, String group, String interrupt) {}

  /** Records the properties of every job start. */
  static final class JobRecorder extends SparkListener {
    private final List<Job> started = new ArrayList<>();

    @Override
    public synchronized void onJobStart(SparkListenerJobStart start) {
      java.util.Properties p = start.properties();
      started.add(
          new Job(
              start.jobId(),
              p == null ? null : p.getProperty(JobLabels.DESCRIPTION),
              p == null ? null : p.getProperty(JobLabels.GROUP),
              p == null ? null : p.getProperty(JobLabels.INTERRUPT)));
    }

    /** The jobs started since the last call, once the listener bus has delivered every event. */
    List<Job> drain() {
      try {
        sc.listenerBus().waitUntilEmpty();
      } catch (java.util.concurrent.TimeoutException e) {
        throw new AssertionError("the listener bus did not drain", e);
      }
      synchronized (this) {
        List<Job> out = new ArrayList<>(started);
        started.clear();
        return out;
      }
    }
  }

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("JobLabelsTest");
    sc = spark.sparkContext();
    sc.addSparkListener(jobs);
  }

  @AfterAll
  static void stop() {
    sc.removeSparkListener(jobs);
    spark.stop();
  }

  @BeforeEach
  void noLabels() {
    jobs.drain();
    assertNoThreadLabels();
  }

  @AfterEach
  void labelsRestored() {
    assertNoThreadLabels();
  }

  @Test
  void prepareFromPathsLabelsEveryStepInOrder() {
    Path store = prepareCora(tmp.resolve("paths.store"), "0");
    List<Job> started = jobs.drain();

    assertThat(store.resolve("manifest.json")).exists();
    // paths (schema read), edge checks, auto partition count, vertex checks, vertex files, edges;
    // cora's edges are a Parquet scan whose footers count no null endpoint, so step 2 passes from
    // them and starts no job, and its vertices one whose footers count its rows, so step 3 too
    assertLabelled(started, "prepare", "fanout-prepare", 6);
    assertThat(steps(started))
        .containsExactly(
            "read the input schemas (1/6)",
            "validate vertices and count them per partition (4/6)",
            "sort vertices, write vertex files and the id map (5/6)",
            "sort edges by destination and write csr files (6/6)");
    // a guard on redundant actions: 2 schema reads, then 2 jobs (a shuffle map stage and its
    // result) for each of the vertex checks and the vertex files, and 1 for the edges
    assertThat(started).as("the Spark jobs of a prepare of cora").hasSizeLessThanOrEqualTo(7);
  }

  @Test
  void sampleLabelsBothModesPerHop() throws Exception {
    Path store = prepareCora(tmp.resolve("sample.store"), "2");
    jobs.drain();

    sample(store, tmp.resolve("replicated"), "replicated");
    List<Job> replicated = jobs.drain();
    assertLabelled(replicated, "sample", "fanout-sample", 1);
    assertThat(steps(replicated)).containsExactly("sample 2 epoch(s) into 2 part file(s) (1/1)");

    sample(store, tmp.resolve("partitioned"), "partitioned");
    List<Job> partitioned = jobs.drain();
    assertLabelled(partitioned, "sample", "fanout-sample", 4);
    assertThat(steps(partitioned))
        .containsExactly(
            "sort seeds (1/4)",
            "sample hop 1 of 2 (2/4)",
            "sample hop 2 of 2 (3/4)",
            "gather batches and write part files (4/4)");
  }

  @Test
  void callersJobGroupIsKeptAndRestored() {
    sc.setJobGroup("notebook-cell-7", "the caller's description", false);
    try {
      GraphGenerator g = new GraphGenerator(300, 1500, 4, 3, 1, 0.5);
      Path in = tmp.resolve("generated");
      g.write(spark, 2, in.resolve("v.parquet").toString(), in.resolve("e.parquet").toString());
      Fanout.get(spark)
          .prepare(g.vertices(spark, 2), g.edges(spark, 2))
          .option("partitioner", "range")
          .option("partitions", "3")
          .output(tmp.resolve("generated.store").toString())
          .execute();
      List<Job> started = jobs.drain();

      assertThat(started).isNotEmpty();
      for (Job j : started) {
        assertThat(j.group()).as(j.toString()).isEqualTo("notebook-cell-7");
        assertThat(j.description()).as(j.toString()).matches(LABEL);
      }
      assertThat(steps(started))
          .startsWith("write vertices (1/2)", "write edges (2/2)")
          .contains(
              "validate edges (1/5)",
              "assign vertices to partitions (2/5)",
              "sort edges by destination and write csr files (5/5)");
      assertThat(sc.getLocalProperty(JobLabels.GROUP)).isEqualTo("notebook-cell-7");
      assertThat(sc.getLocalProperty(JobLabels.DESCRIPTION)).isEqualTo("the caller's description");
      assertThat(sc.getLocalProperty(JobLabels.INTERRUPT)).isEqualTo("false");
    } finally {
      sc.clearJobGroup();
    }
  }

  @Test
  void jobsOfAFailingPrepareAreLabelledAndLabelsRestored() {
    Dataset<Row> v = spark.sql("SELECT id FROM range(10)");
    Dataset<Row> e = spark.sql("SELECT id AS src, IF(id = 3, NULL, id + 1) AS dst FROM range(9)");

    assertThatThrownBy(
            () ->
                Fanout.get(spark)
                    .prepare(v, e)
                    .output(tmp.resolve("bad.store").toString())
                    .execute())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("null destination");
    List<Job> started = jobs.drain();

    // the checks' aggregation and the sample row of the error
    assertThat(started).hasSizeGreaterThanOrEqualTo(2);
    assertLabelled(started, "prepare", "fanout-prepare", 5);
    assertThat(steps(started)).containsOnly("validate edges (1/5)");
  }

  @Test
  void labelsNestAndRestoreTheOuterOnes() {
    JobLabels.run(
        spark,
        "outer",
        "first",
        1,
        2,
        () -> {
          JobLabels.run(spark, "inner", "only", 1, 1, () -> spark.range(3).count());
          assertThat(sc.getLocalProperty(JobLabels.DESCRIPTION))
              .isEqualTo("fanout outer: first (1/2)");
          spark.range(4).count();
        });
    List<Job> started = jobs.drain();

    assertThat(steps(started)).containsExactly("only (1/1)", "first (1/2)");
    assertThat(started.get(0).description()).isEqualTo("fanout inner: only (1/1)");
    // the inner call keeps the group the outer one set
    assertThat(started).extracting(Job::group).containsOnly("fanout-outer");
    assertThat(started).extracting(Job::interrupt).containsOnly("true");
  }

  private static Path prepareCora(Path out, String partitions) {
    Path ds = SparkTestSession.dataset("cora");
    Fanout.get(spark)
        .prepare()
        .option("vertices", ds.resolve("vertices.parquet").toString())
        .option("edges", ds.resolve("edges.parquet").toString())
        .option("undirected", "true")
        .option("partitions", partitions)
        .output(out.toString())
        .execute();
    return out;
  }

  private static void sample(Path store, Path out, String mode) throws Exception {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    SampleJob.run(
        spark,
        FanoutConf.of(
            "sample",
            SampleOptions.ALL,
            Map.of(
                "graph",
                store.toString(),
                "output",
                out.toString(),
                "fanouts",
                "5,3",
                "batch-size",
                "32",
                "epochs",
                "2",
                "mode",
                mode)),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  /** Every job is labelled as a step {@code i/count} of {@code stage} in {@code group}. */
  private static void assertLabelled(List<Job> started, String stage, String group, int count) {
    assertThat(started).isNotEmpty();
    for (Job j : started) {
      assertThat(j.description()).as(j.toString()).isNotNull().matches(LABEL);
      Matcher m = LABEL.matcher(j.description());
      assertThat(m.matches()).isTrue();
      assertThat(m.group(1)).as(j.toString()).isEqualTo(stage);
      assertThat(Integer.parseInt(m.group(4))).as(j.toString()).isEqualTo(count);
      assertThat(Integer.parseInt(m.group(3))).as(j.toString()).isBetween(1, count);
      assertThat(j.group()).as(j.toString()).isEqualTo(group);
      assertThat(j.interrupt()).as(j.toString()).isEqualTo("true");
    }
  }

  /** The distinct {@code "<step> (i/n)"} of the jobs, in the order they first started. */
  private static List<String> steps(List<Job> started) {
    List<String> out = new ArrayList<>();
    TreeSet<Integer> ids = new TreeSet<>();
    for (Job j : started) {
      ids.add(j.id());
    }
    for (int id : ids) {
      for (Job j : started) {
        if (j.id() == id) {
          String d = j.description() == null ? "null" : j.description();
          String step = d.substring(d.indexOf(": ") + 2);
          if (!out.contains(step)) {
            out.add(step);
          }
        }
      }
    }
    return out;
  }

  private static void assertNoThreadLabels() {
    assertThat(sc.getLocalProperty(JobLabels.DESCRIPTION)).isNull();
    assertThat(sc.getLocalProperty(JobLabels.GROUP)).isNull();
    assertThat(sc.getLocalProperty(JobLabels.INTERRUPT)).isNull();
  }
}
