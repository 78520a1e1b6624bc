package io.fanout.spark.prepare;

import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import io.fanout.testing.JobCounts;
import io.fanout.testing.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.function.Function;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Measurement harness, run by name only ({@code -Dtest=PrepareJobsProbe}): the Spark jobs, stages
 * and seconds of small prepares (each twice in one JVM, the second warm), and a SHA-256 listing of
 * every file of each store under {@code -Dprobe.dir} (default {@code target/probe}) to compare
 * stores before and after a change byte for byte.
 */
class PrepareJobsProbe {
  static SparkSession spark;
  static final TypedGraphFixture G = new TypedGraphFixture(7);
  @TempDir Path tmp;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.start("PrepareJobsProbe");
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  PrepareAction cora(Path out) {
    Path ds = SparkTestSession.dataset("cora");
    return Fanout.get(spark)
        .prepare()
        .option("vertices", ds.resolve("vertices.parquet").toString())
        .option("edges", ds.resolve("edges.parquet").toString())
        .option("undirected", "true")
        .option("dedupe", "true")
        .option("self-loops", "drop")
        .output(out.toString());
  }

  PrepareAction typed(Path out) {
    return G.prepare(spark).option("partitions", "2").output(out.toString());
  }

  void measure(String name, Function<Path, PrepareAction> action) throws Exception {
    for (int round = 0; round < 2; round++) {
      Path out = tmp.resolve(name + round);
      long t0 = System.nanoTime();
      try (JobCounts c = JobCounts.record(spark)) {
        action.apply(out).execute();
        double s = (System.nanoTime() - t0) / 1e9;
        System.out.printf(
            "PROBE %s round %d: %.2f s%n%s%s", name, round, s, c.report(), c.stageReport());
      }
      if (round == 1) {
        digest(name, out);
      }
    }
  }

  static void digest(String name, Path root) throws Exception {
    StringBuilder b = new StringBuilder();
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    try (var files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
        b.append(HexFormat.of().formatHex(md.digest(Files.readAllBytes(f))))
            .append("  ")
            .append(root.relativize(f))
            .append('\n');
      }
    }
    Path dir = Paths.get(System.getProperty("probe.dir", "target/probe"));
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(name + ".sha"), b.toString());
    Files.copy(
        root.resolve("manifest.json"),
        dir.resolve(name + ".manifest.json"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  @Test
  void cora() throws Exception {
    measure("cora", this::cora);
  }

  @Test
  void coraLink() throws Exception {
    measure(
        "cora-link",
        out ->
            cora(out)
                .option("task", "link")
                .option("edge-split", "0.8,0.1,0.1")
                .option("feature-encoding", "int8"));
  }

  @Test
  void typed() throws Exception {
    measure("typed", this::typed);
  }

  @Test
  void typedLink() throws Exception {
    measure(
        "typed-link",
        out ->
            typed(out)
                .option("task", "link")
                .option("link-relation", "writes")
                .option("edge-split", "0.5,0.25,0.25")
                .option("edge-split-negatives", "2")
                .option("edge-split-seed", "5"));
  }

  @Test
  void typedEncoded() throws Exception {
    measure(
        "typed-f16",
        out ->
            typed(out)
                .option("feature-encoding", "paper=int8,author=f16")
                .option("dedupe", "true"));
  }
}
