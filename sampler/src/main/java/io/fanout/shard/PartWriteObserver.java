package io.fanout.shard;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Sees every shard part a task attempt has written, before the attempt's file is renamed to the
 * part's name: for instrumentation such as the fault injection of the retry tests. An
 * implementation is named by class in the Spark conf and instantiated in every task through its
 * public no-argument constructor.
 */
public interface PartWriteObserver {
  /**
   * Called once the part's bytes are in {@code attemptFile}. Throwing fails the task attempt, which
   * leaves {@code attemptFile} behind as a crashed attempt would.
   *
   * @param attempt the task attempt number (0 for the first attempt)
   */
  void written(Path attemptFile, int epoch, int part, int attempt) throws IOException;
}
