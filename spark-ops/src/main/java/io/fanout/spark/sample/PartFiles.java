package io.fanout.spark.sample;

import io.fanout.shard.ShardPartWriter;
import io.fanout.shard.ShardPlan;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.function.Function;
import org.apache.spark.TaskContext;

/**
 * Writes one part file from a task: to a temporary file private to the attempt, then an atomic
 * rename to the part's final name in the staging directory. A retried or speculative attempt writes
 * the same bytes, so whichever rename lands last leaves the same file.
 */
public final class PartFiles {
  private PartFiles() {}

  /** Failures injected by the test hook in this JVM (local-mode tests read it). */
  public static final java.util.concurrent.atomic.AtomicInteger INJECTED =
      new java.util.concurrent.atomic.AtomicInteger();

  static PartResult write(
      SampleSpec spec,
      String staging,
      int epoch,
      int part,
      Function<Path, ShardPartWriter.Written> writer) {
    Path target = Paths.get(staging).resolve(ShardPlan.partPath(epoch, part));
    TaskContext tc = TaskContext.get();
    String attempt = tc == null ? "local" : tc.stageId() + "-" + tc.taskAttemptId();
    Path tmp = target.resolveSibling("." + target.getFileName() + "." + attempt + ".tmp");
    try {
      Files.createDirectories(target.getParent());
      Files.deleteIfExists(tmp);
      ShardPartWriter.Written w = writer.apply(tmp);
      if (spec.failFirstAttempt != null
          && spec.failFirstAttempt.equals(epoch + ":" + part)
          && tc != null
          && tc.attemptNumber() == 0) {
        // Test hook: die with a half-written file left behind, as a crashed task would.
        try (RandomAccessFile f = new RandomAccessFile(tmp.toFile(), "rw")) {
          f.setLength(f.length() / 2);
        }
        INJECTED.incrementAndGet();
        throw new IllegalStateException(
            "injected failure of the first attempt of part " + epoch + ":" + part);
      }
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      return new PartResult(epoch, part, spec.plan.firstBatch(part), spec.plan.endBatch(part), w);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write part " + target, e);
    }
  }
}
