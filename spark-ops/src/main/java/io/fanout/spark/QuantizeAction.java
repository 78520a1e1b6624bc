package io.fanout.spark;

import io.fanout.conf.options.PrepareOptions;
import io.fanout.conf.options.QuantizeCommandOptions;
import io.fanout.spark.prepare.QuantizeJob;
import org.apache.spark.sql.SparkSession;

/**
 * A configured {@code quantize}: an f32 graph store re-encoded ({@code feature-encoding} int8,
 * int4, f16 or pq) into a new store, without the input tables; see {@link Fanout#quantize}.
 */
public final class QuantizeAction extends FanoutAction<QuantizeAction, PrepareResult> {
  private final String store;

  QuantizeAction(SparkSession spark, String store) {
    super(spark, "quantize", QuantizeCommandOptions.ALL);
    this.store = store;
  }

  /** The store directory to write ({@code output}). */
  public QuantizeAction output(String path) {
    return option(PrepareOptions.OUTPUT.name(), path);
  }

  /**
   * The encoding to write ({@code feature-encoding}: f32, f16, int8, int4 or pq; on a typed store
   * also per type, {@code paper=int8,author=f16}).
   */
  public QuantizeAction encoding(String encoding) {
    return option("feature-encoding", encoding);
  }

  /**
   * Writes the new store, or keeps a complete one already written from the same source and options.
   *
   * @throws io.fanout.store.InvalidInputException when the source is not an f32 store with features
   * @throws io.fanout.conf.FanoutConfigException on bad options
   */
  @Override
  public PrepareResult execute() {
    return PrepareResult.of(spark(), new QuantizeJob(spark(), conf(), store).run());
  }
}
