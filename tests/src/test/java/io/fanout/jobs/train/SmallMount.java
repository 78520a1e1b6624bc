package io.fanout.jobs.train;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A real small or read-only file system for a test: a tmpfs mounted on a folder, unmounted on
 * close. Mounting needs root where mounts are allowed (a CI container usually is); elsewhere the
 * test that asks for one is skipped.
 */
final class SmallMount implements AutoCloseable {
  private final Path dir;

  private SmallMount(Path dir) {
    this.dir = dir;
  }

  /** A tmpfs of {@code kib} KiB on {@code dir} (created), read-only when {@code readOnly}. */
  static SmallMount of(Path dir, int kib, boolean readOnly) throws Exception {
    Files.createDirectories(dir);
    String opts = (readOnly ? "ro," : "") + "size=" + kib + "k";
    int rc = run("mount", "-t", "tmpfs", "-o", opts, "tmpfs", dir.toString());
    Assumptions.assumeTrue(rc == 0, "cannot mount a tmpfs here (needs root)");
    return new SmallMount(dir);
  }

  Path dir() {
    return dir;
  }

  /** Fills the file system up to {@code leftBytes} free bytes, or as near as it goes. */
  void fillLeaving(long leftBytes) throws IOException {
    long free = Files.getFileStore(dir).getUsableSpace();
    long fill = Math.max(0, free - leftBytes);
    try (var out = Files.newOutputStream(dir.resolve("filler"))) {
      byte[] block = new byte[4096];
      for (long w = 0; w + block.length <= fill; w += block.length) {
        out.write(block);
      }
    } catch (IOException full) {
      // full already: as filled as it gets
    }
  }

  @Override
  public void close() throws Exception {
    run("umount", "-l", dir.toString());
  }

  private static int run(String... cmd) throws Exception {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(30, TimeUnit.SECONDS) ? p.exitValue() : -1;
    } catch (IOException e) {
      return -1; // no mount command
    }
  }
}
