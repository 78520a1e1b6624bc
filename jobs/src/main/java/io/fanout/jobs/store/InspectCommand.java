package io.fanout.jobs.store;

import static io.fanout.conf.options.InspectOptions.*;

import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.InspectOptions;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.GraphStore;
import io.fanout.graph.NeighborSkew;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.VertexTable;
import io.fanout.spark.internal.JsonLine;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code bin/fanout inspect STORE}: verifies a graph store (headers, lengths, checksums, and the
 * manifest's statistics recomputed from the mapped files) and prints its summary as JSON; for a
 * typed store, counts per vertex type and per relation ({@link TypedInspect}). Needs no Spark.
 */
public final class InspectCommand implements Command {
  @Override
  public String name() {
    return "inspect";
  }

  @Override
  public String summary() {
    return "verify a graph store and print its counts, classes, splits and degrees as JSON";
  }

  @Override
  public String positionalUsage() {
    return "STORE";
  }

  @Override
  public List<OptionDef<?>> options() {
    return InspectOptions.ALL;
  }

  @Override
  public int run(CommandContext ctx) {
    if (ctx.positional().size() != 1) {
      throw new FanoutConfigException("inspect needs one STORE directory, got " + ctx.positional());
    }
    Path root = Paths.get(ctx.positional().get(0));
    if (StoreManifest.read(root).typed()) {
      Map<String, Object> summary = TypedInspect.summary(root, !ctx.conf().get(NO_CHECKSUMS));
      String compare = ctx.conf().get(COMPARE);
      if (!compare.isEmpty()) {
        try (TypedGraphStore g = TypedGraphStore.open(root, false)) {
          summary.put("compare", FeatureFidelity.measureTyped(g, Paths.get(compare)));
        }
      }
      ctx.out().println(JsonLine.of(summary));
      return 0;
    }
    try (GraphStore store = GraphStore.open(root)) {
      int verified = ctx.conf().get(NO_CHECKSUMS) ? 0 : store.verifyChecksums();
      StoreManifest m = store.manifest();
      CsrGraph csr = store.csr();
      VertexTable vt = store.vertices();
      int n = csr.numVertices();
      long degMin = n == 0 ? 0 : Long.MAX_VALUE;
      long degMax = 0;
      long[] splits = new long[4];
      int maxLabel = -1;
      for (int v = 0; v < n; v++) {
        long d = csr.degree(v);
        degMin = Math.min(degMin, d);
        degMax = Math.max(degMax, d);
        byte s = vt.split(v);
        if (s < 0 || s > 3) {
          throw new InvalidInputException(
              root
                  + "/"
                  + StoreLayout.NODES_DIR
                  + ": vertex "
                  + v
                  + " has split code "
                  + s
                  + ", expected 0..3 (corrupted)");
        }
        splits[s]++;
        maxLabel = Math.max(maxLabel, vt.label(v));
      }
      Map<String, Long> splitCounts = new LinkedHashMap<>();
      for (String name : new String[] {"train", "val", "test", "none"}) {
        splitCounts.put(name, splits[StoreLayout.splitCode(name)]);
      }
      expect(root, "classes", maxLabel + 1, (long) m.classes);
      expect(root, "degree.min", degMin, m.degree.min);
      expect(root, "degree.max", degMax, m.degree.max);
      for (Map.Entry<String, Long> e : splitCounts.entrySet()) {
        expect(root, "split_counts." + e.getKey(), e.getValue(), m.splitCounts.get(e.getKey()));
      }
      Map<String, Object> degree = new LinkedHashMap<>();
      degree.put("min", degMin);
      degree.put("max", degMax);
      degree.put("mean", n == 0 ? 0.0 : Math.round((double) csr.numEdges() / n * 1e6) / 1e6);
      degree.put(
          "hot_5pct_neighbor_share", Math.round(NeighborSkew.hotShare(csr, 0.05) * 1e4) / 1e4);
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("store", root.toAbsolutePath().toString());
      out.put("vertices", n);
      out.put("edges", csr.numEdges());
      out.put("partitions", m.partitions);
      out.put("partitioning", PartitionQuality.of(m, csr));
      out.put("feature_dim", m.featureDim);
      out.put("feature_encoding", m.featureEncoding);
      if (store.featureParams() != null) {
        int rowBytes = store.featureParams().rowBytes();
        out.put("feature_bytes_per_row", rowBytes);
        out.put("feature_compression", Math.round(4.0 * m.featureDim / rowBytes * 100) / 100.0);
      }
      out.put("classes", maxLabel + 1);
      out.put("split_counts", splitCounts);
      out.put("degree", degree);
      out.put("id_type", m.idType);
      out.put("dropped_dangling_edges", m.droppedDanglingEdges);
      out.put("options", m.options);
      out.put("files_verified", verified);
      String compare = ctx.conf().get(COMPARE);
      if (!compare.isEmpty()) {
        out.put("compare", FeatureFidelity.measure(store, Paths.get(compare)));
      }
      ctx.out().println(JsonLine.of(out));
    }
    return 0;
  }

  private static void expect(Path root, String field, long got, Long manifest) {
    if (manifest == null || got != manifest) {
      throw new InvalidInputException(
          root.resolve(StoreLayout.MANIFEST)
              + ": "
              + field
              + " is "
              + manifest
              + " but the store's files give "
              + got
              + " (corrupted or edited)");
    }
  }
}
