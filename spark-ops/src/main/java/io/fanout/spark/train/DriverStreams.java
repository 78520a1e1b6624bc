package io.fanout.spark.train;

import java.io.PrintStream;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Lets a task print progress to its caller's stream. A task carries only the stream's id; when it
 * runs in the driver's JVM (local mode) it finds the stream here, and on an executor it prints to
 * that executor's {@code System.err} (its log).
 */
final class DriverStreams {
  private static final Map<String, PrintStream> OPEN = new ConcurrentHashMap<>();

  private DriverStreams() {}

  /** Registers {@code out}; returns its id, or null when {@code out} is null (no progress). */
  static String register(PrintStream out) {
    if (out == null) {
      return null;
    }
    String id = UUID.randomUUID().toString();
    OPEN.put(id, out);
    return id;
  }

  static void unregister(String id) {
    if (id != null) {
      OPEN.remove(id);
    }
  }

  /** The stream a task prints to: the registered one, else System.err, or null for none. */
  static PrintStream forTask(String id) {
    if (id == null) {
      return null;
    }
    PrintStream out = OPEN.get(id);
    return out != null ? out : System.err;
  }
}
