package io.fanout.spark.prepare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * How {@code prepare} learns the free bytes of a file system before it starts. The default asks the
 * file store; {@link io.fanout.spark.internal.Hooks#FREE_SPACE_PROBE} names another implementation
 * (tests use one that reports a full disk).
 */
public interface FreeSpaceProbe {
  /** Bytes a new file under {@code dir} (an existing directory) may take. */
  long usableBytes(Path dir) throws IOException;

  /** The file store's usable space. */
  final class FileStoreProbe implements FreeSpaceProbe {
    @Override
    public long usableBytes(Path dir) throws IOException {
      return Files.getFileStore(dir).getUsableSpace();
    }
  }
}
