package io.fanout.spark.prepare;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.apache.spark.TaskContext;

/**
 * Task-side file naming: a task writes its part file under a hidden name of its own attempt, then
 * renames it into place, so a retried or speculative attempt rewrites the same bytes without two
 * attempts ever writing one file, and readers of the staging folder (Spark reads {@code idmap/})
 * never see a partial file.
 */
final class PartFiles {
  private PartFiles() {}

  static Path attemptFile(Path target) {
    TaskContext tc = TaskContext.get();
    long attempt = tc == null ? 0 : tc.taskAttemptId();
    return target.resolveSibling("." + target.getFileName() + ".attempt-" + attempt);
  }

  /**
   * Removes what failed or killed attempts left behind (hidden {@code .*.attempt-*} files), so that
   * only committed part files are published.
   */
  static void removeAttemptLeftovers(Path staging) {
    try (java.util.stream.Stream<Path> s = Files.walk(staging)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        String name = p.getFileName().toString();
        if (name.startsWith(".") && name.contains(".attempt-")) {
          Files.deleteIfExists(p);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot clean " + staging, e);
    }
  }

  static void commit(Path attempt, Path target) {
    try {
      Files.move(
          attempt, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot move " + attempt + " to " + target, e);
    }
  }
}
