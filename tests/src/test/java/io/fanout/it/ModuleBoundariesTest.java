package io.fanout.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module boundaries of {@code docs/developing.md}: Spark is referenced only from {@code
 * spark-ops}, {@code jobs}, {@code bench} and {@code tests} (the engine-free modules also ban Spark
 * artifacts through the enforcer plugin), each module reaches only the modules beneath it, and the
 * CUDA backend is reached from no main code but its own package and the benchmarks.
 */
class ModuleBoundariesTest {
  private static final Path REPO = Path.of(System.getProperty("fanout.repo", ".."));
  private static final Pattern SPARK = Pattern.compile("\\borg\\.apache\\.spark\\b");
  private static final Pattern FANOUT_REF = Pattern.compile("\\bio\\.fanout\\.([a-z]+)\\b");
  private static final Pattern CUDA = Pattern.compile("\\bio\\.fanout\\.tensor\\.cuda\\b");

  /** The packages each module owns, bottom module first. */
  private static final String[][] OWNS = {
    {"partitioner", "store", "graph"},
    {"sampler", "sample", "shard"},
    {"gpu-trainer", "tensor", "nn", "train", "dist", "features", "conf"},
    {"spark-ops", "spark", "testing"},
    {"jobs", "cli", "jobs"},
    {"bench", "bench"},
  };

  @Test
  void noSparkOutsideSparkOpsJobsAndTests() throws IOException {
    List<String> offenders = new ArrayList<>();
    for (String module : List.of("partitioner", "sampler", "gpu-trainer")) {
      for (Path f : javaFiles(REPO.resolve(module).resolve("src"))) {
        List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
          if (SPARK.matcher(lines.get(i)).find()) {
            offenders.add(REPO.relativize(f) + ":" + (i + 1) + ": " + lines.get(i).trim());
          }
        }
      }
    }
    assertThat(offenders).as("Spark referenced from an engine-free module").isEmpty();
  }

  @Test
  void modulesDependOnlyDownwards() throws IOException {
    List<String> offenders = new ArrayList<>();
    for (int m = 0; m < OWNS.length; m++) {
      for (Path f : javaFiles(REPO.resolve(OWNS[m][0]).resolve("src").resolve("main"))) {
        Matcher refs = FANOUT_REF.matcher(Files.readString(f, StandardCharsets.UTF_8));
        while (refs.find()) {
          int owner = owner(refs.group(1));
          if (owner > m) {
            offenders.add(
                REPO.relativize(f)
                    + " ("
                    + OWNS[m][0]
                    + ") uses io.fanout."
                    + refs.group(1)
                    + " of "
                    + OWNS[owner][0]);
          }
        }
      }
    }
    assertThat(offenders).as("a module reaching a module above it").isEmpty();
  }

  @Test
  void everyMainPackageHasOneOwner() throws IOException {
    List<String> unknown = new ArrayList<>();
    for (String[] module : OWNS) {
      for (Path f : javaFiles(REPO.resolve(module[0]).resolve("src").resolve("main"))) {
        String pkg =
            REPO.resolve(module[0])
                .resolve("src/main/java/io/fanout")
                .relativize(f)
                .getName(0)
                .toString();
        if (owner(pkg) < 0 || !OWNS[owner(pkg)][0].equals(module[0])) {
          unknown.add(REPO.relativize(f) + " is in io.fanout." + pkg);
        }
      }
    }
    assertThat(unknown).as("a package outside its module's list in this test").isEmpty();
  }

  @Test
  void onlyTheBenchmarksReachTheCudaBackend() throws IOException {
    Path cudaPackage = Path.of("io", "fanout", "tensor", "cuda");
    List<String> offenders = new ArrayList<>();
    for (String[] module : OWNS) {
      if (module[0].equals("bench")) {
        continue;
      }
      Path main = REPO.resolve(module[0]).resolve("src/main/java");
      for (Path f : javaFiles(REPO.resolve(module[0]).resolve("src").resolve("main"))) {
        if (f.startsWith(main) && main.relativize(f).startsWith(cudaPackage)) {
          continue;
        }
        List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
          if (CUDA.matcher(lines.get(i)).find()) {
            offenders.add(REPO.relativize(f) + ":" + (i + 1) + ": " + lines.get(i).trim());
          }
        }
      }
    }
    assertThat(offenders).as("io.fanout.tensor.cuda used outside itself and bench").isEmpty();
  }

  private static int owner(String pkg) {
    for (int m = 0; m < OWNS.length; m++) {
      for (int p = 1; p < OWNS[m].length; p++) {
        if (OWNS[m][p].equals(pkg)) {
          return m;
        }
      }
    }
    return -1;
  }

  private static List<Path> javaFiles(Path dir) throws IOException {
    assertThat(dir).as("module sources (fanout.repo=" + REPO + ")").isDirectory();
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
  }
}
