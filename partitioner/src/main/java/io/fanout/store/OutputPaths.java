package io.fanout.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Output paths checked before any work, so that a path the file system cannot hold fails at once
 * with one message naming it, not after reading the inputs (or a training epoch) with an I/O error.
 */
public final class OutputPaths {
  private OutputPaths() {}

  /** The longest file name, in bytes, of the common file systems (ext4, XFS, Btrfs, APFS, NTFS). */
  public static final int NAME_MAX = 255;

  /**
   * Returns {@code p} when it can be created: no name in it is longer than {@link #NAME_MAX} bytes,
   * and the file system accepts its first missing name (asked with a lookup, which creates nothing;
   * this also catches file systems with shorter names, a file where a folder is expected, and
   * folders that cannot be searched).
   *
   * @param option the option that named it, e.g. {@code --output}
   * @throws InvalidInputException naming the option, the path and what is wrong with it
   */
  public static Path check(Path p, String option) {
    Path abs = p.toAbsolutePath().normalize();
    for (Path name : abs) {
      int bytes = name.toString().getBytes(StandardCharsets.UTF_8).length;
      if (bytes > NAME_MAX) {
        String s = name.toString();
        throw new InvalidInputException(
            option
                + " "
                + p
                + ": the name '"
                + s.substring(0, Math.min(16, s.length()))
                + "...' in it is "
                + bytes
                + " bytes long; file systems allow at most "
                + NAME_MAX
                + ": choose a shorter name");
      }
    }
    Path at = abs.getRoot();
    for (Path name : abs) {
      at = at.resolve(name);
      try {
        Files.readAttributes(at, BasicFileAttributes.class);
      } catch (NoSuchFileException e) {
        return p;
      } catch (FileSystemException e) {
        String reason =
            e instanceof AccessDeniedException
                ? "permission denied"
                : String.valueOf(e.getReason());
        throw new InvalidInputException(
            option + " " + p + ": cannot use " + at + " (" + reason + "); choose another path");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot look up " + at, e);
      }
    }
    return p;
  }
}
