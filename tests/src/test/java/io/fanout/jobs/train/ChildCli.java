package io.fanout.jobs.train;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code bin/fanout} in a child JVM, as a user runs it: the test class path, the JVM flags Spark
 * needs (this JVM's), {@code bin/log4j2.properties} for logging, and a heap of its own; for what
 * only a separate process shows (what Spark's loggers print, a small heap, a kill).
 */
final class ChildCli {
  private ChildCli() {}

  /** A process builder for {@code bin/fanout args...} with {@code -Xmx<heap>}; stderr apart. */
  static ProcessBuilder builder(String heap, List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx" + heap);
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (a.startsWith("--add-") || a.startsWith("-XX:+IgnoreUnrecognized") || isSparkFlag(a)) {
        // the flags Spark 4 needs on Java 17, as surefire passes them
        cmd.add(a);
      }
    }
    String repo = System.getProperty("fanout.repo", ".");
    cmd.add("-Dlog4j2.configurationFile=" + Path.of(repo, "bin", "log4j2.properties"));
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("io.fanout.cli.FanoutCli");
    cmd.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    pb.environment().put("FANOUT_PROGRESS", "none");
    return pb;
  }

  private static boolean isSparkFlag(String a) {
    return a.startsWith("-Djdk.reflect") || a.startsWith("-Dio.netty");
  }

  /** The lines of {@code stderr} that are not the JVM's own notice of incubator modules. */
  static List<String> fanoutLines(String stderr) {
    return stderr
        .lines()
        .filter(l -> !l.startsWith("WARNING: Using incubator modules"))
        .filter(l -> !l.isBlank())
        .toList();
  }

  /**
   * Runs to the end; returns the exit status and standard error. The child compiles with C1 only: a
   * command that runs for seconds spends about half the CPU time it would with C2 compiling Spark's
   * start-up beside it, and prints the same lines.
   */
  static Result run(String heap, List<String> args) throws Exception {
    ProcessBuilder pb = builder(heap, args);
    pb.command().add(1, "-XX:TieredStopAtLevel=1");
    Process p = pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    String err = new String(p.getErrorStream().readAllBytes());
    return new Result(p.waitFor(), err);
  }

  record Result(int code, String err) {}
}
