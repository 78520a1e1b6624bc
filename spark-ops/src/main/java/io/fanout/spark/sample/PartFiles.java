package io.fanout.spark.sample;

import io.fanout.shard.PartWriteObserver;
import io.fanout.shard.ShardPartWriter;
import io.fanout.shard.ShardPlan;
import io.fanout.spark.internal.Hooks;
import java.io.IOException;
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

  static PartResult write(
      SampleSpec spec,
      String staging,
      int epoch,
      int part,
      Function<Path, ShardPartWriter.Written> writer) {
    return write(spec.plan, spec.partObserver, staging, epoch, part, writer);
  }

  /**
   * Writes part {@code part} of {@code epoch} of {@code plan}, calling the {@link
   * PartWriteObserver} class {@code partObserver} (null: none) before the rename.
   */
  static PartResult write(
      ShardPlan plan,
      String partObserver,
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
      if (partObserver != null) {
        Hooks.instantiate(Hooks.PART_WRITE_OBSERVER, partObserver, PartWriteObserver.class)
            .written(tmp, epoch, part, tc == null ? 0 : tc.attemptNumber());
      }
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      return new PartResult(epoch, part, plan.firstBatch(part), plan.endBatch(part), w);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write part " + target, e);
    }
  }
}
