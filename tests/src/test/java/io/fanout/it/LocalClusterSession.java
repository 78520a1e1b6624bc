package io.fanout.it;

import java.io.File;
import org.apache.spark.sql.SparkSession;

/**
 * A SparkSession over {@code local-cluster[N,1,M]}: N real executor JVMs started from the test
 * classpath, no Spark distribution needed (see {@code shared/notes/spark-on-this-machine.md}).
 */
final class LocalClusterSession {
  private LocalClusterSession() {}

  static SparkSession start(String appName, int executors, int executorMemoryMb) {
    return start(appName, executors, executorMemoryMb, java.util.Map.of());
  }

  /** As {@link #start(String, int, int)}, with extra Spark configuration. */
  static SparkSession start(
      String appName, int executors, int executorMemoryMb, java.util.Map<String, String> conf) {
    System.setProperty("spark.testing", "1");
    System.setProperty("spark.test.home", new File("target/spark-test-home").getAbsolutePath());
    SparkSession.Builder b =
        SparkSession.builder()
            .master("local-cluster[" + executors + ",1," + executorMemoryMb + "]")
            .appName(appName)
            .config("spark.executorEnv.SPARK_SCALA_VERSION", "2.13")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4");
    conf.forEach(b::config);
    return b.getOrCreate();
  }

  static void stop(SparkSession spark) {
    try {
      if (spark != null) {
        spark.stop();
      }
    } finally {
      System.clearProperty("spark.testing");
      System.clearProperty("spark.test.home");
    }
  }
}
