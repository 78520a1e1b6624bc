package io.fanout.train;

import io.fanout.store.FileTrees;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A model dir that a run created, removed again when the run ends without a checkpoint in it (it
 * failed, or was cancelled, before its first epoch was saved), so that a failed first run leaves
 * nothing rather than a folder with a metrics line and no model. Taken and closed by the model
 * dir's one writer, while it holds the dir's lock; a dir that was there before is never removed.
 */
final class FreshModelDir implements AutoCloseable {
  private final Path dir;
  private final boolean fresh;

  /** Notes whether {@code dir} exists now, before the run writes into it. */
  FreshModelDir(Path dir) {
    this.dir = dir;
    this.fresh = !Files.exists(dir);
  }

  @Override
  public void close() {
    if (!fresh || !Files.isDirectory(dir) || Checkpoint.exists(dir)) {
      return;
    }
    try {
      FileTrees.deleteRecursively(dir);
    } catch (IOException e) {
      // what is left holds no checkpoint: the next run starts over in it
    }
  }
}
