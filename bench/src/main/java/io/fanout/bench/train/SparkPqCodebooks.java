package io.fanout.bench.train;

import io.fanout.bench.store.InMemoryGraphStores;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.options.QuantizeOptions;
import io.fanout.spark.prepare.FeatureQuantizer;
import io.fanout.store.FeatureParams;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code bench-features --encoding pq}'s codebooks, trained as {@code quantize} trains them: the
 * same seeded sample of dense ids, the same Spark MLlib {@code KMeans}. Only the sampled rows are
 * computed, so a generated store gets the codebooks that {@code quantize} would give its f32 twin.
 */
final class SparkPqCodebooks implements FeatureCacheBenchmark.PqCodebooks {
  private final CommandContext ctx;
  private final FanoutConf conf;

  SparkPqCodebooks(CommandContext ctx, FanoutConf conf) {
    this.ctx = ctx;
    this.conf = conf;
    FeatureQuantizer.pqRequest(conf, 1); // a bad pq option fails before any work
  }

  @Override
  public FeatureParams train(int vertices, int dim, InMemoryGraphStores.RowSource rows) {
    FeatureQuantizer.Request r = FeatureQuantizer.pqRequest(conf, dim);
    double rate = FeatureQuantizer.sampleRate(r, vertices);
    List<float[]> sample = new ArrayList<>();
    for (int v = 0; v < vertices; v++) {
      if (FeatureQuantizer.inSample(r.seed(), v, rate)) {
        float[] row = new float[dim];
        rows.row(v, row);
        sample.add(row);
      }
    }
    return new FeatureQuantizer(ctx.spark()).trainPq(sample, dim, r);
  }

  @Override
  public String options() {
    return "group-size "
        + conf.get(QuantizeOptions.PQ_GROUP_SIZE)
        + ", sample-rows "
        + conf.get(QuantizeOptions.PQ_SAMPLE_ROWS)
        + ", seed "
        + conf.get(QuantizeOptions.PQ_SEED);
  }
}
