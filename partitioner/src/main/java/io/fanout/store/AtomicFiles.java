package io.fanout.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;

/**
 * The one way Fanout replaces a single file: the new content is written to a temporary file in the
 * same folder, forced to disk, and renamed onto the target in one atomic step. A reader opens the
 * old file or the new one, never a torn one, and a crash at any point leaves one of them (plus, at
 * most, the temporary file, which the next write truncates). Checkpoints, metrics, manifests and
 * committed task outputs all go through here ({@code docs/reliability.md}).
 */
public final class AtomicFiles {
  private AtomicFiles() {}

  /**
   * Test hook: called with the target just before the rename; a test throws to simulate a crash.
   */
  static volatile Consumer<Path> beforeRename = p -> {};

  /**
   * Forces {@code tmp} to disk and renames it onto {@code target}, replacing it atomically.
   *
   * @throws AtomicMoveNotSupportedException when the file system cannot rename atomically (the
   *     temporary file is then left for the caller to remove)
   */
  public static void replace(Path tmp, Path target) throws IOException {
    try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
      c.force(true);
    }
    beforeRename.accept(target);
    Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }
}
