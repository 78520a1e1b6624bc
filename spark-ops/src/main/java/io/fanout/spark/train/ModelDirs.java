package io.fanout.spark.train;

import io.fanout.train.Checkpoint;
import io.fanout.train.ModelDirFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What {@code train} does to a model dir before it trains afresh over an earlier run. */
public final class ModelDirs {
  private ModelDirs() {}

  /**
   * Removes the files an earlier run left in {@code dir} (checkpoints and metrics), so that a new
   * run starts from nothing; other files are left alone.
   */
  public static void clear(Path dir) {
    for (String name : List.of(Checkpoint.FILE, Checkpoint.BEST, ModelDirFiles.METRICS)) {
      try {
        Files.deleteIfExists(dir.resolve(name));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot remove " + dir.resolve(name), e);
      }
    }
  }
}
