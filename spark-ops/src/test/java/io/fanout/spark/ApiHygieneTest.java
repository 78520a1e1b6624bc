package io.fanout.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Fanout runs inside its callers' JVMs (a notebook's driver, Spark's executors), so its library
 * modules never end the JVM. The session-level checks (session, configuration, thread labels,
 * system properties, locale, time zone, threads, open files) are the last step of {@link
 * NotebookSessionTest}, after the pipeline has run through the API.
 */
class ApiHygieneTest {
  private static final Path REPO = Path.of(System.getProperty("fanout.repo", ".."));
  private static final Pattern EXIT =
      Pattern.compile("System\\.exit|Runtime\\.getRuntime\\(\\)\\.halt|\\.exit\\(|\\.halt\\(");

  @Test
  void libraryModulesNeverEndTheJvm() throws IOException {
    List<String> offenders = new ArrayList<>();
    int files = 0;
    for (String module : List.of("partitioner", "sampler", "gpu-trainer", "spark-ops")) {
      Path main = REPO.resolve(module).resolve("src").resolve("main");
      List<Path> sources;
      try (Stream<Path> walk = Files.walk(main)) {
        sources = walk.filter(p -> p.toString().endsWith(".java")).sorted().toList();
      }
      for (Path f : sources) {
        files++;
        List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
          if (EXIT.matcher(lines.get(i)).find()) {
            offenders.add(REPO.relativize(f) + ":" + (i + 1) + ": " + lines.get(i).trim());
          }
        }
      }
    }
    assertThat(files).as("main sources found under " + REPO.toAbsolutePath()).isGreaterThan(50);
    assertThat(offenders).as("calls that end the JVM").isEmpty();
  }
}
