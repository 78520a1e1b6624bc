package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fanout.cli.CliRun.Result;
import io.fanout.store.InvalidInputException;
import io.fanout.testing.SparkTestSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A command whose output is one of its inputs (or inside one, or holding one), typed by a slip,
 * exits 2 with one line naming both options and the path, with or without {@code --overwrite}, and
 * leaves the input as it was.
 */
@Tag("slow")
class OutputOverInputTest {
  @TempDir static Path tmpDir;
  static Path tmp;
  static Path store;
  static Path shards;
  static Path model;
  static Path tables;
  static SparkSession spark;

  @BeforeAll
  static void fixtures() throws Exception {
    spark = SparkTestSession.start("OutputOverInputTest");
    tmp = tmpDir.toRealPath();
    TrainFixtures.Graph graph = TrainFixtures.graph(5, 120, 8);
    store = tmp.resolve("store");
    TrainFixtures.writeStore(store, graph);
    shards = tmp.resolve("shards");
    TrainFixtures.writeShards(shards, store, graph, new int[] {3, 3}, 32, 1, 1);
    model = tmp.resolve("model");
    Result t =
        cli(
            "train",
            "--graph",
            store.toString(),
            "--shards",
            shards.toString(),
            "--model-dir",
            model.toString(),
            "--epochs",
            "1",
            "--hidden",
            "8");
    assertThat(t.code()).as(t.err()).isZero();
    tables = tmp.resolve("tables");
    spark
        .createDataFrame(
            List.of(RowFactory.create(1L, 0), RowFactory.create(2L, 1)),
            new StructType().add("id", DataTypes.LongType).add("label", DataTypes.IntegerType))
        .coalesce(1)
        .write()
        .parquet(tables.resolve("vertices.parquet").toString());
    spark
        .createDataFrame(
            List.of(RowFactory.create(1L, 2L)),
            new StructType().add("src", DataTypes.LongType).add("dst", DataTypes.LongType))
        .coalesce(1)
        .write()
        .parquet(tables.resolve("edges.parquet").toString());
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Every file and folder under {@code dir} with a CRC32 of its bytes. */
  static Map<String, Long> snapshot(Path dir) throws IOException {
    Map<String, Long> m = new TreeMap<>();
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        long crc = -1;
        if (Files.isRegularFile(p)) {
          CRC32 c = new CRC32();
          c.update(Files.readAllBytes(p));
          crc = c.getValue();
        }
        m.put(dir.relativize(p).toString(), crc);
      }
    }
    return m;
  }

  /**
   * Runs {@code args}, expecting exit 2 and one line holding every fragment, and {@code input}
   * unchanged.
   */
  static void refused(Path input, String command, List<String> args, String... fragments)
      throws IOException {
    Map<String, Long> before = snapshot(input);
    Result r = cli(args);
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).startsWith("fanout " + command + ": error: ").doesNotContain("\tat ");
    assertThat(r.err().strip().lines()).hasSize(1);
    assertThat(r.err()).contains(fragments);
    assertThat(snapshot(input)).isEqualTo(before);
  }

  static List<String> infer(String... more) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of("infer", "--graph", store.toString(), "--model-dir", model.toString()));
    args.addAll(List.of(more));
    return args;
  }

  @Test
  void inferIntoItsGraphStoreIsRefused() throws IOException {
    refused(
        store,
        "infer",
        infer("--output", store.toString(), "--overwrite"),
        "--output " + store + " is the input --graph " + store,
        "choose another --output");
    refused(
        store,
        "infer",
        infer("--embeddings", store.resolve("emb").toString()),
        "--embeddings " + store.resolve("emb") + " is inside the input --graph " + store);
  }

  @Test
  void inferIntoItsModelDirIsRefused() throws IOException {
    refused(
        model,
        "infer",
        infer("--output", model.toString(), "--overwrite"),
        "--output " + model + " is the input --model-dir " + model);
    refused(
        model,
        "infer",
        infer("--output", tmp.toString(), "--overwrite"),
        "--output " + tmp + " holds the input --graph " + store);
  }

  @Test
  void inferThroughASymbolicLinkToTheStoreIsRefused() throws IOException {
    Path link = Files.createSymbolicLink(tmp.resolve("store-link"), store);
    refused(
        store,
        "infer",
        infer("--output", link.toString(), "--overwrite"),
        "--output " + link + " (real path " + store + ") is the input --graph " + store);
  }

  @Test
  void inferOutputsOverlappingEachOtherAreRefused() throws IOException {
    Path pred = tmp.resolve("pred");
    refused(
        store,
        "infer",
        infer("--output", pred.toString(), "--embeddings", pred.resolve("emb").toString()),
        "--embeddings " + pred.resolve("emb") + " is inside the output --output " + pred);
    assertThat(pred).doesNotExist();
  }

  @Test
  void sampleIntoItsGraphStoreIsRefused() throws IOException {
    refused(
        store,
        "sample",
        List.of(
            "sample",
            "--graph",
            store.toString(),
            "--output",
            store.toString(),
            "--overwrite",
            "--fanouts",
            "2,2"),
        "--output " + store + " is the input --graph " + store);
  }

  @Test
  void trainWithTheModelDirInsideTheStoreIsRefused() throws IOException {
    Path inside = store.resolve("model");
    refused(
        store,
        "train",
        List.of(
            "train",
            "--graph",
            store.toString(),
            "--shards",
            shards.toString(),
            "--model-dir",
            inside.toString()),
        "--model-dir " + inside + " is inside the input --graph " + store);
    assertThat(inside).doesNotExist();
    refused(
        shards,
        "train",
        List.of(
            "train",
            "--graph",
            store.toString(),
            "--shards",
            shards.toString(),
            "--model-dir",
            shards.toString(),
            "--resume"),
        "--model-dir " + shards + " is the input --shards " + shards);
  }

  @Test
  void prepareIntoItsInputFolderIsRefused() throws IOException {
    Path vertices = tables.resolve("vertices.parquet");
    Path edges = tables.resolve("edges.parquet");
    for (Path out : List.of(vertices, tables)) {
      refused(
          tables,
          "prepare",
          List.of(
              "prepare",
              "--vertices",
              vertices.toString(),
              "--edges",
              edges.toString(),
              "--output",
              out.toString(),
              "--overwrite"),
          "--output " + out,
          " the input --vertices " + vertices,
          "choose another --output");
    }
  }

  @Test
  void quantizeIntoItsSourceStoreIsRefused() throws IOException {
    Path inside = store.resolve("int8");
    refused(
        store,
        "quantize",
        List.of(
            "quantize",
            store.toString(),
            "--output",
            inside.toString(),
            "--feature-encoding",
            "int8",
            "--overwrite"),
        "--output " + inside + " is inside the input STORE " + store);
  }

  @Test
  void quickstartRefusesAnOverlappingPlanBeforeItsFirstStep() throws IOException {
    Path vertices = tables.resolve("vertices.parquet");
    refused(
        tables,
        "quickstart",
        List.of("quickstart", "--dataset", tables.toString(), "--work-dir", vertices.toString()),
        "--work-dir " + vertices.resolve("store") + " is inside the input --dataset " + vertices);
    assertThat(vertices.resolve("store")).doesNotExist();
    // two steps' outputs made one by a link in the work dir
    Path work = Files.createDirectories(tmp.resolve("work"));
    Path prepared = Files.createDirectories(work.resolve("store"));
    Path modelLink = Files.createSymbolicLink(work.resolve("model"), prepared);
    assertThatThrownBy(
            () -> EndToEnd.refuseOverlap(tables, prepared, work.resolve("shards"), modelLink))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(
            "--work-dir "
                + modelLink
                + " (real path "
                + prepared
                + ") is the output --work-dir "
                + prepared);
  }
}
