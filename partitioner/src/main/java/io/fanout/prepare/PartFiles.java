package io.fanout.prepare;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.apache.spark.TaskContext;

/**
 * Task-side file naming: a task writes its part file under a name of its own attempt, then renames
 * it into place, so a retried or speculative attempt rewrites the same bytes without two attempts
 * ever writing one file.
 */
final class PartFiles {
  private PartFiles() {}

  static Path attemptFile(Path target) {
    TaskContext tc = TaskContext.get();
    long attempt = tc == null ? 0 : tc.taskAttemptId();
    return target.resolveSibling(target.getFileName() + ".attempt-" + attempt);
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
