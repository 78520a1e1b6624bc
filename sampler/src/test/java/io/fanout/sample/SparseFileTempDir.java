package io.fanout.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.extension.AnnotatedElementContext;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.io.TempDirFactory;

/**
 * A {@code @TempDir} for files that are mostly holes: on tmpfs ({@code /dev/shm}) where that is a
 * writable folder, else the default temporary folder. Reading a hole on tmpfs copies the shared
 * zero page, where ext4 first allocates and zeroes a page-cache page for it: {@link
 * LargeOffsetsTest}'s checksum pass over its 17 GB of holes takes seconds there and about a minute
 * on ext4. Only the pages written take memory.
 */
final class SparseFileTempDir implements TempDirFactory {
  static final Path TMPFS = Paths.get("/dev/shm");

  @Override
  public Path createTempDirectory(
      AnnotatedElementContext elementContext, ExtensionContext extensionContext) throws Exception {
    if (Files.isDirectory(TMPFS) && Files.isWritable(TMPFS)) {
      return Files.createTempDirectory(TMPFS, "junit-sparse");
    }
    return Files.createTempDirectory("junit-sparse");
  }
}
