package io.fanout.cli;

import io.fanout.conf.FanoutConfigException;
import java.util.ServiceLoader;
import java.util.regex.Pattern;
import org.apache.spark.SparkMasterRegex$;
import org.apache.spark.scheduler.ExternalClusterManager;

/**
 * Checks a Spark master URL the way {@code SparkContext} parses it, before a session is started: a
 * master Spark cannot parse fails there only after logging a stack trace.
 */
final class SparkMasters {
  private SparkMasters() {}

  static final String ACCEPTED =
      "local, local[N], local[*], local[N,F], local-cluster[W,C,MB], spark://HOST:PORT, or yarn"
          + " and k8s://HOST:PORT where their Spark modules are on the classpath";

  /** local[0], local[0,F], local-cluster[0,C,MB] and local-cluster[W,0,MB]: no thread to run on. */
  private static final Pattern ZERO =
      Pattern.compile(
          "local\\[0+(,.*)?]|local-cluster\\[\\s*(0+\\s*,.*|[0-9]+\\s*,\\s*0+\\s*,.*)]");

  /**
   * Refuses {@code master} (from {@code option}, e.g. {@code --master}) unless Spark's own master
   * patterns or a cluster manager on the classpath accept it; null passes.
   *
   * @throws FanoutConfigException naming the master and the accepted forms
   */
  static void check(String master, String option) {
    if (master == null) {
      return;
    }
    if (ZERO.matcher(master).matches()) {
      throw new FanoutConfigException(
          option
              + " '"
              + master
              + "' asks for no threads or workers; expected at least 1 (local[*] takes every"
              + " core)");
    }
    if (accepted(master)) {
      return;
    }
    throw new FanoutConfigException(
        option + " '" + master + "' is not a Spark master URL; expected " + ACCEPTED);
  }

  /**
   * Refuses task resources ({@code spark.task.resource.NAME.amount}) on a local master: Spark's
   * local scheduler offers no resources, so a stage asking for them never starts (it waits at 0/N
   * tasks with no message). {@code master} null is the default, {@code local[*]}.
   *
   * @throws FanoutConfigException naming the key and what to do instead
   */
  static void checkTaskResources(String master, java.util.Map<String, String> conf) {
    String m = master == null ? "local[*]" : master;
    if (!(m.equals("local") || m.startsWith("local["))) {
      return;
    }
    for (String k : conf.keySet()) {
      if (k.startsWith("spark.task.resource.") && k.endsWith(".amount")) {
        throw new FanoutConfigException(
            "--conf "
                + k
                + " on the local master "
                + m
                + ": Spark's local scheduler offers no task resources, so every stage would wait"
                + " forever; drop it (train --backend cuda runs on device 0 in local mode) or use"
                + " a cluster master");
      }
    }
  }

  private static boolean accepted(String master) {
    SparkMasterRegex$ r = SparkMasterRegex$.MODULE$;
    if (master.equals("local")) {
      return true;
    }
    for (Pattern p :
        new Pattern[] {
          r.LOCAL_N_REGEX().pattern(),
          r.LOCAL_N_FAILURES_REGEX().pattern(),
          r.LOCAL_CLUSTER_REGEX().pattern(),
          r.SPARK_REGEX().pattern()
        }) {
      if (p.matcher(master).matches()) {
        return true;
      }
    }
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    for (ExternalClusterManager m :
        ServiceLoader.load(
            ExternalClusterManager.class,
            loader != null ? loader : SparkMasters.class.getClassLoader())) {
      if (m.canCreate(master)) {
        return true;
      }
    }
    return false;
  }
}
