package io.fanout.jobs.sample;

import io.fanout.shard.PartWriteObserver;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fault injection for the sample retry test, installed through {@code
 * spark.fanout.hooks.part-write-observer}: the first attempt of the task writing part 1 of epoch 0
 * cuts its file to half and fails, as a task that crashed mid-write would.
 */
public final class FailFirstAttempt implements PartWriteObserver {
  /** Failures injected in this JVM (local-mode tests read it). */
  public static final AtomicInteger INJECTED = new AtomicInteger();

  static final int EPOCH = 0;
  static final int PART = 1;

  @Override
  public void written(Path attemptFile, int epoch, int part, int attempt) throws IOException {
    if (epoch != EPOCH || part != PART || attempt != 0) {
      return;
    }
    try (RandomAccessFile f = new RandomAccessFile(attemptFile.toFile(), "rw")) {
      f.setLength(f.length() / 2);
    }
    INJECTED.incrementAndGet();
    throw new IllegalStateException(
        "injected failure of the first attempt of part " + epoch + ":" + part);
  }
}
