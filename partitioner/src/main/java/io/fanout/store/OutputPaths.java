package io.fanout.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
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
        IoFailure kind = IoFailure.of(e);
        String reason =
            kind == IoFailure.NOT_A_DIRECTORY
                ? IoFailure.describe(e).replaceFirst(";.*", "")
                : kind != null ? kind.reason() : String.valueOf(e.getReason());
        throw new InvalidInputException(
            option + " " + p + ": cannot use " + at + " (" + reason + "); choose another path");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot look up " + at, e);
      }
    }
    return p;
  }

  /**
   * Refuses an output folder {@code p} that cannot be written: a file is there, it is (or goes
   * through) a symbolic link to nothing, or its nearest existing folder is on a read-only file
   * system or not writable by this user. {@link DisjointPaths#check} calls it for every output
   * after refusing overlaps, so that an output given over an input file is refused as that.
   *
   * @param option the option that named it, e.g. {@code --output}
   * @throws InvalidInputException naming the option, the path and what to change
   */
  public static void checkUsable(Path p, String option) {
    Path abs = p.toAbsolutePath().normalize();
    Path at = abs.getRoot();
    for (Path name : abs) {
      at = at.resolve(name);
      if (!Files.exists(at)) {
        refuseDanglingLink(p, option, at);
        refuseUnwritable(p, option, at.getParent());
        return;
      }
    }
    if (!Files.isDirectory(abs)) {
      throw new InvalidInputException(
          option
              + " "
              + p
              + ": is a file, not a folder; remove it, or choose another "
              + option
              + " (the output is a folder)");
    }
    refuseUnwritable(p, option, abs);
  }

  /** Refuses {@code missing} when it is a symbolic link to nothing. */
  private static void refuseDanglingLink(Path p, String option, Path missing) {
    if (!Files.isSymbolicLink(missing)) {
      return;
    }
    String target;
    try {
      target = Files.readSymbolicLink(missing).toString();
    } catch (IOException e) {
      target = "a path that cannot be read";
    }
    throw new InvalidInputException(
        option
            + " "
            + p
            + ": "
            + (missing.equals(p.toAbsolutePath().normalize()) ? "is" : "goes through " + missing)
            + " a symbolic link to "
            + target
            + ", which does not exist; create its target, remove the link, or choose another "
            + option);
  }

  /**
   * Refuses an output whose nearest existing folder {@code dir} lies on a read-only file system or
   * cannot be written by this user (a check without writing; a refusal the check cannot see, such
   * as a mount that refuses even root, comes when the writer's lock file is created beside it).
   */
  private static void refuseUnwritable(Path p, String option, Path dir) {
    if (dir == null || !Files.isDirectory(dir)) {
      return;
    }
    IoFailure kind = null;
    try {
      if (Files.getFileStore(dir).isReadOnly()) {
        kind = IoFailure.READ_ONLY;
      }
    } catch (IOException e) {
      // unknown store: left to the writability check
    }
    if (kind == null && !Files.isWritable(dir)) {
      kind = IoFailure.PERMISSION;
    }
    if (kind != null) {
      throw new InvalidInputException(
          option
              + " "
              + p
              + ": cannot write in "
              + dir
              + " ("
              + kind.reason()
              + "); "
              + kind.advice().replace("another path", "another " + option));
    }
  }
}
