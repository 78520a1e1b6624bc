package io.fanout.jobs.store;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.QuantizeCommandOptions;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareResult;
import io.fanout.store.StoreManifest;
import java.util.List;

/** {@code bin/fanout quantize STORE --output OUT --feature-encoding ENC}: re-encode features. */
public final class QuantizeCommand implements Command {
  @Override
  public String name() {
    return "quantize";
  }

  @Override
  public String summary() {
    return "re-encode an f32 store's features (f16, int8, int4, pq; per type on a typed store)"
        + " into a new store";
  }

  @Override
  public String positionalUsage() {
    return "STORE";
  }

  @Override
  public List<OptionDef<?>> options() {
    return QuantizeCommandOptions.ALL;
  }

  @Override
  public int run(CommandContext ctx) {
    if (ctx.positional().size() != 1) {
      throw new FanoutConfigException(
          "quantize needs one STORE directory (an f32 store), got " + ctx.positional());
    }
    PrepareResult r =
        Fanout.get(ctx.spark()).quantize(ctx.positional().get(0)).options(ctx.options()).execute();
    StoreManifest m = r.manifest();
    ctx.err()
        .printf(
            "quantize: %s %s (%s features, %d vertices) in %.1f s%n",
            r.skipped() ? "kept the complete store at" : "wrote",
            r.store(),
            m.typed() ? typedEncodings(m) : m.featureEncoding,
            m.vertices,
            r.seconds());
    ctx.out().println(r.toJson());
    return 0;
  }

  /** {@code TYPE=ENC,...} over the types with features of a typed store. */
  private static String typedEncodings(StoreManifest m) {
    StringBuilder sb = new StringBuilder();
    for (StoreManifest.TypeEntry t : m.types) {
      if (t.featureDim > 0) {
        sb.append(sb.length() == 0 ? "" : ",").append(t.name).append('=').append(t.featureEncoding);
      }
    }
    return sb.toString();
  }
}
