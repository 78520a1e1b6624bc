package io.fanout.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.apache.spark.sql.SparkSession;

/**
 * The one {@code local[2]} SparkSession a test class shares: create it in {@code @BeforeAll}, stop
 * it in {@code @AfterAll}.
 */
public final class SparkTestSession {
  private SparkTestSession() {}

  public static SparkSession start(String appName) {
    return start(appName, java.util.Map.of());
  }

  /** As {@link #start(String)}, with {@code conf} set on the context (e.g. shuffle codecs). */
  public static SparkSession start(String appName, java.util.Map<String, String> conf) {
    SparkSession.Builder b =
        SparkSession.builder()
            .master("local[2]")
            .appName(appName)
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1");
    conf.forEach(b::config);
    return b.getOrCreate();
  }

  /**
   * The folder of a real dataset from {@code data/} (the property {@code fanout.datasets}), e.g.
   * {@code "cora"}.
   */
  public static Path dataset(String name) {
    String root = System.getProperty("fanout.datasets", "data");
    Path p = Paths.get(root, name);
    if (!Files.isDirectory(p)) {
      throw new IllegalStateException("dataset not found: " + p.toAbsolutePath());
    }
    return p;
  }
}
