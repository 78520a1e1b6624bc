package io.fanout.store;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;

/**
 * The I/O failures a user causes and can fix (a full disk, a read-only mount, a missing permission,
 * a file where a folder belongs, a missing file), told apart from the others, with the change that
 * fixes each. The file system gives its reason as text only ({@code
 * FileSystemException.getReason()}, or the message of a plain {@link IOException} from a stream or
 * from Hadoop), so the kinds are recognized by the POSIX texts the JDK and Hadoop use.
 */
public enum IoFailure {
  NO_SPACE("no space left on the device", "free space there, or write elsewhere"),
  READ_ONLY("on a read-only file system", "write elsewhere"),
  PERMISSION("permission denied", "give this user access to it, or choose another path"),
  NOT_A_DIRECTORY(
      "a file is where a folder is expected", "remove or rename that file, or choose another path"),
  IS_A_DIRECTORY("a folder is where a file is expected", "remove it, or choose another path"),
  MISSING("no such file or folder", "check the path (was it moved or removed?)"),
  CANNOT_CREATE(
      "cannot create the folder",
      "check that its parent is a writable folder, or choose another path");

  private final String reason;
  private final String advice;

  IoFailure(String reason, String advice) {
    this.reason = reason;
    this.advice = advice;
  }

  /** What happened, in a few words: "no space left on the device". */
  public String reason() {
    return reason;
  }

  /** What the user changes: "free space there, or write elsewhere". */
  public String advice() {
    return advice;
  }

  /** The kind of {@code t} itself (its causes are not looked at), or null when it is none. */
  public static IoFailure of(Throwable t) {
    if (t instanceof AccessDeniedException) {
      return PERMISSION;
    }
    if (t instanceof NotDirectoryException) {
      return NOT_A_DIRECTORY;
    }
    if (t instanceof NoSuchFileException) {
      return MISSING;
    }
    if (t instanceof FileAlreadyExistsException e) {
      // createDirectories over a file; a create-new race between writers is not a user's doing
      return e.getFile() != null && Files.isRegularFile(Paths.get(e.getFile()))
          ? NOT_A_DIRECTORY
          : null;
    }
    String text =
        t instanceof FileSystemException e && e.getReason() != null
            ? e.getReason()
            : t instanceof IOException ? t.getMessage() : null;
    if (text == null) {
      return null;
    }
    String s = text.toLowerCase(Locale.ROOT);
    if (s.contains("no space left on device") || s.contains("disk quota exceeded")) {
      return NO_SPACE;
    }
    if (s.contains("read-only file system")) {
      return READ_ONLY;
    }
    if (s.contains("permission denied") || s.contains("operation not permitted")) {
      return PERMISSION;
    }
    if (s.contains("not a directory")) {
      return NOT_A_DIRECTORY;
    }
    if (s.contains("is a directory")) {
      return IS_A_DIRECTORY;
    }
    if (s.contains("no such file or directory")) {
      return MISSING;
    }
    if (s.contains("mkdirs failed to create")) {
      return CANNOT_CREATE;
    }
    return null;
  }

  /**
   * The first throwable in {@code t}'s cause chain that is one of these failures, or null. Errors
   * are looked through too: Hadoop's local file system wraps a full disk in an {@code FSError}.
   */
  public static Throwable find(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (of(c) != null) {
        return c;
      }
    }
    return null;
  }

  /**
   * One line for {@code failure} (one of these): the path it names, the reason and the advice, e.g.
   * {@code "/data/out/v-0002: no space left on the device; free space there, or write elsewhere"}.
   */
  public static String describe(Throwable failure) {
    return describe(failure, "");
  }

  /**
   * As {@link #describe(Throwable)}, after {@code context} (what was being done, e.g. {@code
   * "cannot read /a/manifest.json"}; empty for none), which then names the path only when the
   * context does not already. A folder expected where a file is gets the file's own path.
   */
  public static String describe(Throwable failure, String context) {
    IoFailure kind = of(failure);
    String path =
        failure instanceof FileSystemException e && e.getFile() != null
            ? e.getFile()
            : subject(failure.getMessage());
    if (kind == NOT_A_DIRECTORY && path != null) {
      path = fileOnTheWay(path);
    }
    StringBuilder sb = new StringBuilder(context);
    if (!context.isEmpty()) {
      sb.append(": ");
    }
    if (path != null && !context.equals(path) && !context.endsWith(" " + path)) {
      sb.append(path);
      if (failure instanceof FileSystemException e && e.getOtherFile() != null) {
        sb.append(" -> ").append(e.getOtherFile());
      }
      sb.append(": ");
    }
    if (kind == NOT_A_DIRECTORY && path != null && Files.isRegularFile(Paths.get(path))) {
      sb.append("is a file, not a folder");
    } else {
      sb.append(kind == null ? "failed" : kind.reason);
    }
    return sb.append("; ").append(kind == null ? "see the log" : kind.advice).toString();
  }

  /** The nearest of {@code path} and its ancestors that is a regular file, else {@code path}. */
  private static String fileOnTheWay(String path) {
    try {
      for (Path p = Paths.get(path); p != null; p = p.getParent()) {
        if (Files.isRegularFile(p)) {
          return p.toString();
        }
      }
    } catch (java.nio.file.InvalidPathException e) {
      // not a path: left as given
    }
    return path;
  }

  /** {@code bytes} as a reader takes a size of free space: "1.5 GiB", "17 MiB", "24 KiB". */
  public static String size(long bytes) {
    if (bytes >= 1L << 30) {
      return String.format(Locale.ROOT, "%.1f GiB", bytes / (double) (1L << 30));
    }
    if (bytes >= 1L << 20) {
      return ((bytes + (1 << 20) - 1) >> 20) + " MiB";
    }
    return ((bytes + 1023) >> 10) + " KiB";
  }

  /** {@link #describe} of the failure that {@code path} names, for a caller that knows the path. */
  public static String describe(Path path, IoFailure kind) {
    return path + ": " + kind.reason + "; " + kind.advice;
  }

  /**
   * What a stream's or Hadoop's message names beside the system's words: {@code "/a/b"} of {@code
   * "/a/b (Permission denied)"}; null when it is only the system's words ({@code "No space left on
   * device"}).
   */
  private static String subject(String message) {
    if (message == null) {
      return null;
    }
    int nl = message.indexOf('\n');
    String s = (nl < 0 ? message : message.substring(0, nl)).strip();
    int paren = s.lastIndexOf(" (");
    if (paren > 0 && s.endsWith(")")) {
      return s.substring(0, paren);
    }
    return s.isEmpty() || of(new IOException(s)) != null && !s.contains("/") ? null : s;
  }
}
