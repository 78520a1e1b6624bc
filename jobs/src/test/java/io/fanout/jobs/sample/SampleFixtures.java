package io.fanout.jobs.sample;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import io.fanout.cli.CliRun;
import io.fanout.spark.Fanout;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;

/** Stores prepared from the real datasets, and running {@code bin/fanout sample} in-process. */
final class SampleFixtures {
  private SampleFixtures() {}

  static Path prepare(SparkSession spark, String dataset, int partitions, Path out) {
    Path ds = SparkTestSession.dataset(dataset);
    Fanout.get(spark)
        .prepare()
        .option("vertices", ds.resolve("vertices.parquet").toString())
        .option("edges", ds.resolve("edges.parquet").toString())
        .option("undirected", "true")
        .option("dedupe", "true")
        .option("partitions", Integer.toString(partitions))
        .output(out.toString())
        .execute();
    return out;
  }

  static CliRun.Result sample(Path store, Path out, String... more) {
    List<String> args = new ArrayList<>();
    args.add("sample");
    args.add("--graph");
    args.add(store.toString());
    args.add("--output");
    args.add(out.toString());
    args.addAll(List.of(more));
    CliRun.Result r = cli(args.toArray(new String[0]));
    return r;
  }

  static CliRun.Result sampleOk(Path store, Path out, String... more) {
    CliRun.Result r = sample(store, out, more);
    assertThat(r.code()).as(r.err()).isZero();
    return r;
  }

  /** Every regular file under {@code dir} but the publish lock (relative path -> bytes). */
  static Map<String, byte[]> files(Path dir) throws IOException {
    Map<String, byte[]> out = new TreeMap<>();
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) s.filter(Files::isRegularFile)::iterator) {
        if (p.getFileName().toString().equals("_publish.lock")) {
          continue;
        }
        out.put(dir.relativize(p).toString(), Files.readAllBytes(p));
      }
    }
    return out;
  }
}
