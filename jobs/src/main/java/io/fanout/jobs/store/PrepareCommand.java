package io.fanout.jobs.store;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareResult;
import io.fanout.store.StoreManifest;
import java.util.List;

/** {@code bin/fanout prepare}: vertex and edge tables to a graph store. */
public final class PrepareCommand implements Command {
  @Override
  public String name() {
    return "prepare";
  }

  @Override
  public String summary() {
    return "build a graph store (CSR, features, labels, id map) from vertex and edge tables";
  }

  @Override
  public List<OptionDef<?>> options() {
    return PrepareOptions.ALL;
  }

  @Override
  public int run(CommandContext ctx) {
    PrepareResult r =
        Fanout.get(ctx.spark()).prepare().options(ctx.options()).commandLineTerms().execute();
    if (r.dryRun()) {
      ctx.err().print(r.plan().describe());
      ctx.out().println(r.toJson());
      return 0;
    }
    StoreManifest m = r.manifest();
    ctx.err()
        .printf(
            "prepare: %s %s (%s%d vertices, %d edges, %d partitions) in %.1f s%n",
            r.skipped() ? "kept the complete store at" : "wrote",
            r.store(),
            m.typed() ? m.types.size() + " types, " + m.relations.size() + " relations, " : "",
            m.vertices,
            m.edges,
            m.partitions,
            r.seconds());
    ctx.out().println(r.toJson());
    return 0;
  }
}
