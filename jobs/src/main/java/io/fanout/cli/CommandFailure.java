package io.fanout.cli;

import io.fanout.conf.FanoutConfigException;
import io.fanout.store.InvalidInputException;
import io.fanout.store.IoFailure;
import io.fanout.train.OutOfHeapException;
import java.net.BindException;

/**
 * The one place where a command's failure is judged, whatever threw it and however Spark wrapped
 * it: a failure the user causes and can fix (bad input or options, paths, permissions, space,
 * memory, ports, masters) is one line naming the subject and what to change, and exit status 2; any
 * other failure is a bug in Fanout, reported with its stack trace and exit status 1.
 *
 * <p>The whole cause chain is looked at: an error thrown in a Spark task reaches the driver wrapped
 * in Spark's own exceptions, and an I/O error inside Fanout's wrappers.
 */
final class CommandFailure {
  /** Exit status of a failure the user can fix. */
  static final int USER_EXIT = 2;

  /** Exit status of a bug. */
  static final int BUG_EXIT = 1;

  /** The line that follows a bug's stack trace. */
  static final String BUG_NOTE =
      "this is a bug in Fanout; please report it with the trace above and the command line";

  private final String message;

  private CommandFailure(String message) {
    this.message = message;
  }

  /** Whether it is the user's to fix (exit 2, one line) rather than a bug (exit 1, a trace). */
  boolean userFixable() {
    return message != null;
  }

  /** The one line for a failure the user can fix; null for a bug. */
  String message() {
    return message;
  }

  /** Judges {@code t}; see the class comment. */
  static CommandFailure of(Throwable t) {
    return new CommandFailure(userMessage(t));
  }

  private static String userMessage(Throwable t) {
    return userMessage(t, false);
  }

  /** {@code fromText}: {@code t} was rebuilt from a message, whose text is not searched again. */
  private static String userMessage(Throwable t, boolean fromText) {
    for (Throwable c = t; c != null; c = next(c)) {
      if (c instanceof InvalidInputException || c instanceof FanoutConfigException) {
        return String.valueOf(c.getMessage()).strip().replaceAll("\\s*\n\\s*", " ");
      }
    }
    for (Throwable c = t; c != null; c = next(c)) {
      if (c instanceof OutOfMemoryError) {
        long heap = Runtime.getRuntime().maxMemory();
        return "ran out of Java heap (max heap "
            + OutOfHeapException.size(heap)
            + "); "
            + OutOfHeapException.moreHeap(2 * heap);
      }
    }
    Throwable io = IoFailure.find(t);
    if (io != null) {
      return IoFailure.describe(io, context(t, io));
    }
    for (Throwable c = t; c != null; c = next(c)) {
      if (c instanceof BindException) {
        return oneLine(String.valueOf(c.getMessage()))
            + ": the port is taken or not this host's; choose another --dist-port (0 picks a free"
            + " one), or end what holds it";
      }
      String m = String.valueOf(c.getMessage());
      if (m.contains("--driver-memory") || m.contains("--executor-memory")) {
        return "Spark needs more Java heap than this JVM has (max heap "
            + OutOfHeapException.size(Runtime.getRuntime().maxMemory())
            + "): "
            + oneLine(m).replaceAll(" Please .*", "")
            + "; raise -Xmx in FANOUT_JAVA_OPTS (bin/fanout takes no --driver-memory), e.g."
            + " FANOUT_JAVA_OPTS=-Xmx8g";
      }
    }
    // A failure whose object did not survive a task's serialization (a barrier stage's is only
    // text in Spark's message): its class name and message did.
    for (Throwable c = t; c != null; c = next(c)) {
      for (String line : String.valueOf(c.getMessage()).split("\n")) {
        Throwable rebuilt = rebuilt(line);
        if (rebuilt instanceof InvalidInputException) {
          return rebuilt.getMessage();
        }
      }
    }
    if (!fromText) {
      for (Throwable c = t; c != null; c = next(c)) {
        for (String line : String.valueOf(c.getMessage()).split("\n")) {
          Throwable rebuilt = rebuilt(line);
          if (rebuilt != null) {
            String m = userMessage(rebuilt, true);
            if (m != null) {
              return m;
            }
          }
        }
      }
    }
    return null;
  }

  /**
   * The exception a line of a message names, {@code "... java.net.BindException: MESSAGE"},
   * rebuilt, when it is one the judge knows a user can cause; else null.
   */
  private static Throwable rebuilt(String line) {
    java.util.regex.Matcher m = THROWN.matcher(line);
    while (m.find()) {
      Throwable r = rebuilt(m.group(1), line.substring(m.end()).strip());
      if (r != null) {
        return r;
      }
    }
    return null;
  }

  private static Throwable rebuilt(String name, String msg) {
    return switch (name) {
      case "io.fanout.store.InvalidInputException",
              "io.fanout.conf.FanoutConfigException",
              "io.fanout.train.OutOfHeapException" ->
          new InvalidInputException(msg);
      case "java.net.BindException" -> new BindException(msg);
      case "java.nio.file.AccessDeniedException" -> new java.nio.file.AccessDeniedException(msg);
      case "java.nio.file.NoSuchFileException" -> new java.nio.file.NoSuchFileException(msg);
      case "java.nio.file.NotDirectoryException" -> new java.nio.file.NotDirectoryException(msg);
      case "java.nio.file.FileSystemException" -> {
        int at = msg.lastIndexOf(": ");
        yield at < 0
            ? new java.io.IOException(msg)
            : new java.nio.file.FileSystemException(
                msg.substring(0, at), null, msg.substring(at + 2));
      }
      case "java.io.IOException", "java.io.FileNotFoundException" -> new java.io.IOException(msg);
      default -> null;
    };
  }

  private static final java.util.regex.Pattern THROWN =
      java.util.regex.Pattern.compile("((?:[a-z][a-z0-9_]*\\.)+[A-Z]\\w*(?:Exception|Error)): ");

  /**
   * What Fanout was doing when {@code io} failed: the message of the exception that wraps it
   * directly ("cannot write checkpoint ... into DIR"), unless that is one of Spark's; else empty.
   */
  private static String context(Throwable t, Throwable io) {
    Throwable wrapper = null;
    for (Throwable c = t; c != null && c != io; c = next(c)) {
      wrapper = c;
    }
    if (wrapper == null || wrapper.getMessage() == null) {
      return "";
    }
    String name = wrapper.getClass().getName();
    String m = wrapper.getMessage();
    if (name.startsWith("org.apache.spark")
        || m.contains("\n")
        || m.equals(io.toString())
        || m.equals(io.getMessage())) {
      return "";
    }
    return m;
  }

  private static Throwable next(Throwable c) {
    return c.getCause() == c ? null : c.getCause();
  }

  private static String oneLine(String s) {
    String m = String.valueOf(s).strip();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl).strip();
  }
}
