package io.fanout.jobs.train;

import static io.fanout.cli.CliRun.cli;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fanout.cli.CliRun.Result;
import io.fanout.testing.SparkTestSession;
import io.fanout.train.Checkpoint;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Environment failures a user causes or fixes (paths, permissions, mounts, space, sizes, values),
 * each through {@code bin/fanout}'s entry point: exit 2, one line on stderr naming the subject and
 * what to change, no stack trace, and no output published (or the old one intact). Full and
 * read-only file systems are real tmpfs mounts ({@link SmallMount}); without root they are skipped,
 * and {@code CommandFailureTest} checks the same messages from the same exceptions.
 */
class HostileEnvironmentTest {
  @TempDir static Path tmp;
  static Path store;
  static Path shards;
  static Path model;
  static SparkSession spark;
  static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void fixtures() throws Exception {
    spark = SparkTestSession.start("HostileEnvironmentTest");
    TrainFixtures.Graph graph = TrainFixtures.graph(5, 300, 12);
    store = tmp.resolve("store");
    TrainFixtures.writeStore(store, graph);
    shards = tmp.resolve("shards");
    TrainFixtures.writeShards(shards, store, graph, new int[] {5, 5}, 64, 1, 1);
    model = tmp.resolve("model");
    Result r = train(model, "--hidden", "8");
    assertThat(r.code()).as(r.err()).isZero();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  private static Result train(Path modelDir, String... more) {
    List<String> args = new ArrayList<>(List.of(TrainFixtures.trainArgs(store, shards, modelDir)));
    args.addAll(List.of(more));
    if (!args.contains("--epochs")) {
      args.addAll(List.of("--epochs", "1"));
    }
    args.addAll(List.of("--progress", "none"));
    return cli(args);
  }

  /**
   * Asserts the rule: exit 2, one line "fanout CMD: error: ..." naming each subject, no trace; the
   * other lines on stderr are the command's own progress lines ("train: ...", "resuming ...").
   */
  private static String refused(Result r, String command, String... subjects) {
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    List<String> lines = r.err().strip().lines().filter(l -> l.startsWith("fanout ")).toList();
    assertThat(lines).as(r.err()).hasSize(1);
    assertThat(lines.get(0)).startsWith("fanout " + command + ": error: ");
    assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception");
    assertThat(lines.get(0)).contains(subjects);
    return lines.get(0);
  }

  private static String[] inferArgs(Path output, String... more) {
    List<String> a =
        new ArrayList<>(
            List.of(
                "infer",
                "--graph",
                store.toString(),
                "--model-dir",
                model.toString(),
                "--output",
                output.toString(),
                "--progress",
                "none"));
    a.addAll(List.of(more));
    return a.toArray(String[]::new);
  }

  private static List<String> listing(Path dir) throws Exception {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.map(
              p -> dir.relativize(p) + ":" + (Files.isRegularFile(p) ? p.toFile().length() : -1))
          .sorted()
          .toList();
    }
  }

  @Test
  void anOutputWhoseParentCannotBeWrittenIsRefused() {
    // /sys refuses new entries even to root; elsewhere permission bits do
    Path out = Path.of("/sys/fanout-hostile-model");
    String line = refused(train(out), "train", out.toString(), "permission denied");
    assertThat(line).contains("choose another");
    assertThat(out).doesNotExist();
    Path pred = Path.of("/sys/fanout-hostile/pred");
    refused(cli(inferArgs(pred)), "infer", "/sys", "permission denied");
    assertThat(pred.getParent()).doesNotExist();
  }

  @Test
  void anOutputOnAReadOnlyMountIsRefused() throws Exception {
    try (SmallMount ro = SmallMount.of(tmp.resolve("ro"), 64, true)) {
      Path out = ro.dir().resolve("model");
      refused(train(out), "train", out.toString(), "read-only file system", "write elsewhere");
    }
  }

  @Test
  void aMissingPairsTableIsOneLine() {
    Path pairs = tmp.resolve("no-pairs.parquet");
    Path out = tmp.resolve("scores");
    refused(
        cli(inferArgs(out, "--task", "link", "--pairs", pairs.toString())),
        "infer",
        pairs.toString(),
        "does not exist");
    assertThat(out).doesNotExist();
  }

  @Test
  void aModelDirThatIsAFileIsRefused() throws Exception {
    Path file = Files.writeString(tmp.resolve("model-file"), "mine");
    refused(train(file), "train", file.toString(), "is a file, not a folder");
    assertThat(Files.readString(file)).isEqualTo("mine");
  }

  @Test
  void anOutputThatIsADanglingLinkIsRefused() throws Exception {
    Path link = Files.createSymbolicLink(tmp.resolve("dangling"), tmp.resolve("nowhere/shards"));
    refused(
        cli("sample", "--graph", store.toString(), "--output", link.toString()),
        "sample",
        link.toString(),
        "symbolic link",
        tmp.resolve("nowhere/shards").toString());
    assertThat(tmp.resolve("nowhere")).doesNotExist();
  }

  @Test
  void aManifestNamingAMissingVersionFolderIsRefused() throws Exception {
    Path copy = tmp.resolve("store-missing-version");
    Files.createDirectories(copy);
    ObjectNode m = (ObjectNode) JSON.readTree(store.resolve("manifest.json").toFile());
    m.put("data_dir", "v-0099");
    JSON.writeValue(copy.resolve("manifest.json").toFile(), m);
    refused(cli("inspect", copy.toString()), "inspect", "v-0099", "missing", copy.toString());
    Path md = tmp.resolve("model-missing-version");
    refused(
        cli(TrainFixtures.trainArgs(copy, shards, md, "--progress", "none")), "train", "v-0099");
    assertThat(md).doesNotExist();
  }

  @Test
  void aFolderOfInputTablesIsNotAStore() throws Exception {
    Path tables = Files.createDirectories(tmp.resolve("tables"));
    Files.writeString(tables.resolve("vertices.csv"), "id,label\n1,0\n");
    refused(cli("inspect", tables.toString()), "inspect", tables.toString(), "not a graph store");
  }

  @Test
  void aModelPastWhatCanBeHeldIsRefusedBeforeTraining() {
    Path md = tmp.resolve("model-huge");
    // 12 features, 3 classes: 31 x hidden + 3 parameters, past 2^31 here
    refused(
        train(md, "--hidden", "100000000"),
        "train",
        "hidden width 100000000",
        "choose a smaller --hidden");
    assertThat(md).doesNotExist();
    // within one array, beyond the heap: the same refusal names the heap
    long heapParams = Runtime.getRuntime().maxMemory() / 16 + 1;
    int hidden = (int) Math.min(Integer.MAX_VALUE / 31 + 1, heapParams / 31 + 1);
    String line = refused(train(md, "--hidden", Integer.toString(hidden)), "train", "--hidden");
    assertThat(line).containsAnyOf("max heap", "a model can hold");
    assertThat(md).doesNotExist();
  }

  @Test
  void aPortOutsideTcpsRangeIsRefused() {
    Path md = tmp.resolve("model-port");
    refused(train(md, "--dist-port", "70000"), "train", "dist-port", "70000", "0..65535");
    assertThat(md).doesNotExist();
  }

  @Test
  void aMasterWithoutThreadsIsRefused() {
    Path out = tmp.resolve("shards-local0");
    refused(
        cli(
            "sample",
            "--master",
            "local[0]",
            "--graph",
            store.toString(),
            "--output",
            out.toString()),
        "sample",
        "local[0]");
    assertThat(out).doesNotExist();
  }

  @Test
  void aFullDiskUnderACheckpointKeepsTheOldOneAndSaysWhatItNeeded() throws Exception {
    try (SmallMount small = SmallMount.of(tmp.resolve("small-ckpt"), 1024, false)) {
      // a first run with no room for its first checkpoint leaves nothing
      Path fresh = small.dir().resolve("fresh");
      small.fillLeaving(16 << 10);
      refused(
          train(fresh, "--hidden", "256"),
          "train",
          "checkpoint.bin",
          "needs about",
          "no space left on the device");
      assertThat(fresh).doesNotExist();
      Files.delete(small.dir().resolve("filler"));
      // a resumed run that finds no room keeps the last checkpoint
      Path md = small.dir().resolve("model");
      assertThat(train(md, "--hidden", "64").code()).isZero();
      byte[] before = Files.readAllBytes(md.resolve("checkpoint.bin"));
      small.fillLeaving(8 << 10);
      refused(
          train(md, "--hidden", "64", "--epochs", "3", "--resume"),
          "train",
          md.toString(),
          "needs about",
          "free space there, or write elsewhere");
      assertThat(md.resolve("checkpoint.bin")).hasBinaryContent(before);
      assertThat(Checkpoint.read(md).epochs()).isEqualTo(1);
    }
  }

  @Test
  void aFullDiskUnderInferenceKeepsTheOldOutput() throws Exception {
    try (SmallMount small = SmallMount.of(tmp.resolve("small-infer"), 1024, false)) {
      Path pred = small.dir().resolve("pred");
      Result first = cli(inferArgs(pred));
      assertThat(first.code()).as(first.err()).isZero();
      List<String> before = listing(pred);
      small.fillLeaving(8 << 10); // room for the writer's lock file, not for the output
      refused(
          cli(inferArgs(pred, "--overwrite")),
          "infer",
          pred.toString(),
          "no space left on the device",
          "is kept");
      assertThat(listing(pred)).isEqualTo(before);
      try (Stream<Path> s = Files.list(small.dir())) {
        assertThat(s.map(p -> p.getFileName().toString())).containsOnly("pred", "filler");
      }
    }
  }

  @Test
  @Tag("slow")
  void aFullDiskUnderPrepareWithTheSpaceCheckSkippedPublishesNothing() throws Exception {
    Path cora = SparkTestSession.dataset("cora");
    try (SmallMount small = SmallMount.of(tmp.resolve("small-prepare"), 256, false)) {
      Path out = small.dir().resolve("store");
      refused(
          cli(
              "prepare",
              "--vertices",
              cora.resolve("vertices.parquet").toString(),
              "--edges",
              cora.resolve("edges.parquet").toString(),
              "--output",
              out.toString(),
              "--skip-space-check",
              "--progress",
              "none"),
          "prepare",
          out.toString(),
          "no space left on the device");
      assertThat(out).doesNotExist();
    }
  }

  @Test
  @Tag("slow")
  void labelsBeyondIntAndDuplicateIdsAreOneLine() throws Exception {
    Path edges = Files.writeString(tmp.resolve("e.csv"), "src,dst\n1,2\n");
    Path big = Files.writeString(tmp.resolve("big.csv"), "id,label\n1,0\n2,3000000000\n");
    Path out = tmp.resolve("store-labels");
    refused(
        cli(
            "prepare",
            "--format",
            "csv",
            "--vertices",
            big.toString(),
            "--edges",
            edges.toString(),
            "--output",
            out.toString(),
            "--progress",
            "none"),
        "prepare",
        "big.csv",
        "label",
        "3000000000");
    assertThat(out).doesNotExist();
    Path dup = Files.writeString(tmp.resolve("dup.csv"), "id,label\n1,0\n2,1\n1,1\n");
    refused(
        cli(
            "prepare",
            "--format",
            "csv",
            "--vertices",
            dup.toString(),
            "--edges",
            edges.toString(),
            "--output",
            out.toString(),
            "--progress",
            "none"),
        "prepare",
        "dup.csv",
        "duplicate vertex id 1");
    assertThat(out).doesNotExist();
  }
}
