package io.fanout.prepare;

import io.fanout.conf.FanoutConf;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/** A configured {@code prepare}; see {@link Fanout} and {@link PrepareOptions}. */
public final class PrepareAction {
  private final SparkSession spark;
  private final Dataset<Row> vertices;
  private final Dataset<Row> edges;
  private final Map<String, String> options = new LinkedHashMap<>();

  PrepareAction(SparkSession spark, Dataset<Row> vertices, Dataset<Row> edges) {
    this.spark = spark;
    this.vertices = vertices;
    this.edges = edges;
  }

  /** Sets an option of {@link PrepareOptions} by its kebab-case name. */
  public PrepareAction option(String name, String value) {
    options.put(name, value);
    return this;
  }

  public PrepareAction options(Map<String, String> all) {
    options.putAll(all);
    return this;
  }

  public PrepareAction output(String path) {
    return option(PrepareOptions.OUTPUT.name(), path);
  }

  /**
   * Runs the preparation, or skips it when the output already holds a store prepared from the same
   * inputs and options.
   *
   * @throws io.fanout.store.InvalidInputException on bad input; nothing is published then
   * @throws io.fanout.conf.FanoutConfigException on bad options
   */
  public PrepareResult execute() {
    FanoutConf conf =
        new FanoutConf(
            "prepare",
            PrepareOptions.ALL,
            options,
            k -> Optional.ofNullable(spark.conf().get(k, null)));
    return new PrepareJob(spark, conf, vertices, edges).run();
  }
}
