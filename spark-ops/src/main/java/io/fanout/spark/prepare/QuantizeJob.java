package io.fanout.spark.prepare;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.conf.options.QuantizeCommandOptions;
import io.fanout.conf.options.QuantizeOptions;
import io.fanout.graph.PartitionRelayout;
import io.fanout.spark.internal.JobSteps;
import io.fanout.store.DisjointPaths;
import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.InvalidInputException;
import io.fanout.store.OutputCommit;
import io.fanout.store.OutputPaths;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.store.StoreOutput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;

/**
 * The {@code quantize} command behind {@link io.fanout.spark.QuantizeAction}: an f32 store
 * re-encoded into a new store, without the input tables. The id map, CSR, nodes and weights files
 * are hard-linked (copied where links are not possible) into the new version folder; the features
 * are encoded by {@link FeatureQuantizer}. The new store records the source's inputs and options
 * plus the encoding options, so it is the store {@code prepare --feature-encoding} would write.
 */
public final class QuantizeJob {
  static final String ENCODE = "encode features";
  static final String LAYOUT = "lay out feature rows";

  private final SparkSession spark;
  private final FanoutConf conf;
  private final Path source;

  public QuantizeJob(SparkSession spark, FanoutConf conf, String source) {
    this.spark = spark;
    this.conf = conf;
    this.source = Paths.get(source).toAbsolutePath().normalize();
  }

  public PrepareOutcome run() {
    long start = System.nanoTime();
    for (OptionDef<?> d : QuantizeCommandOptions.ALL) {
      conf.get(d);
    }
    Path out = OutputPaths.check(PrepareJob.localPath(conf.get(PrepareOptions.OUTPUT)), "--output");
    new DisjointPaths().input("STORE", source).output("--output", out).check();
    StoreManifest src = StoreManifest.read(source);
    if (src.typed()) {
      return new TypedQuantizeJob(spark, conf, source, src, out).run(start);
    }
    if (conf.get(PrepareOptions.FEATURE_ENCODING).namesTypes()) {
      throw new FanoutConfigException(
          "--feature-encoding "
              + conf.raw(PrepareOptions.FEATURE_ENCODING)
              + " names vertex types, but "
              + source
              + " is a one-table store; give one encoding");
    }
    QuantizeOptions.check(conf);
    if (src.featureDim == 0) {
      throw new InvalidInputException(
          source + ": the store has no features (feature_dim 0); there is nothing to quantize");
    }
    if (src.featureLayout != null) {
      throw new InvalidInputException(
          source
              + ": feature rows are stored in layout "
              + src.featureLayout
              + "; quantize reads stores with rows at their ids (quantize the store it was made"
              + " from)");
    }
    if (!src.featureEncoding.equals("f32")) {
      throw new InvalidInputException(
          source
              + ": features are stored as "
              + src.featureEncoding
              + "; quantize reads f32 stores only (quantize the f32 store it was made from)");
    }
    Path srcData = src.dataRoot(source);
    FeatureQuantizer.Request q = FeatureQuantizer.request(conf, src.featureDim);
    Map<String, String> recorded = new java.util.LinkedHashMap<>(src.options);
    for (OptionDef<?> d : QuantizeOptions.ALL) {
      recorded.put(d.name(), conf.resolved().get(d.name()));
    }
    QuantizeOptions.pruneRecorded(recorded, conf);
    FeatureLayoutKind layout = conf.get(QuantizeCommandOptions.FEATURE_LAYOUT);
    recorded.put(
        QuantizeCommandOptions.FEATURE_LAYOUT.name(),
        conf.resolved().get(QuantizeCommandOptions.FEATURE_LAYOUT.name()));
    QuantizeCommandOptions.pruneRecorded(recorded, layout);
    boolean overwrite = conf.get(PrepareOptions.OVERWRITE);
    if (plan(out, src, recorded, overwrite) == OutputCommit.Plan.SKIP) {
      return kept(out, start);
    }
    OutputCommit.Run run = StoreOutput.COMMIT.begin(out);
    Path staging = run.dir();
    try {
      boolean encode = q.encoding() != StoreLayout.ENCODING_F32;
      linkUnchanged(srcData, staging, !encode);
      long[] starts = new long[src.partitions + 1];
      for (int p = 0; p < src.partitions; p++) {
        starts[p + 1] = starts[p] + src.partitionTable.get(p).numVertices;
      }
      List<String> names = new ArrayList<>();
      if (encode) {
        names.add(ENCODE);
      }
      if (layout != FeatureLayoutKind.IDENTITY) {
        names.add(LAYOUT);
      }
      JobSteps steps = new JobSteps(spark, "quantize", names);
      if (encode) {
        steps.run(
            ENCODE,
            () ->
                new FeatureQuantizer(spark).quantize(srcData, staging, starts, src.featureDim, q));
      }
      if (layout != FeatureLayoutKind.IDENTITY) {
        steps.run(LAYOUT, () -> writeLayout(staging, src, layout));
      }
      StoreManifest m = StoreManifest.fromJson(source.toString(), src.toJson());
      m.featureEncoding = StoreLayout.encodingName(q.encoding());
      m.featureLayout = layout == FeatureLayoutKind.IDENTITY ? null : layout.id();
      m.options = recorded;
      m.files = StoreOutput.files(staging);
      if (!StoreOutput.COMMIT.publish(run, m, overwrite)) {
        return kept(out, start);
      }
      return new PrepareOutcome(out, m, false, seconds(start));
    } catch (Exception e) {
      StoreOutput.COMMIT.abort(run);
      throw SparkErrors.unwrap(e);
    }
  }

  /**
   * What to do at {@code out} for a store of {@code src}'s inputs with the options {@code recorded}
   * ({@link OutputCommit#plan}).
   */
  static OutputCommit.Plan plan(
      Path out, StoreManifest src, Map<String, String> recorded, boolean overwrite) {
    return StoreOutput.COMMIT.plan(
        out,
        StoreOutput.request(src.inputFingerprint, recorded),
        StoreOutput.describe(src.inputFingerprint, recorded),
        overwrite);
  }

  /** The outcome of a run that kept the complete store at {@code out}. */
  static PrepareOutcome kept(Path out, long start) {
    return new PrepareOutcome(out, StoreManifest.read(out), true, seconds(start));
  }

  /**
   * Moves the staged feature rows into {@code layout}, computed over the source store's graph (its
   * CSR and nodes files, linked into {@code staging}), in one Spark task per partition.
   */
  private void writeLayout(Path staging, StoreManifest src, FeatureLayoutKind layout) {
    long[] counts = new long[src.partitions];
    long[] edges = new long[src.partitions];
    for (int p = 0; p < src.partitions; p++) {
      counts[p] = src.partitionTable.get(p).numVertices;
      edges[p] = src.partitionTable.get(p).numEdges;
    }
    new FeatureLayoutStage(spark)
        .write(staging, new PartitionRelayout.Staged(counts, edges), layout);
  }

  /**
   * Links every file of {@code src} into {@code dst}, those under {@code features/} only when
   * {@code features}.
   */
  private static void linkUnchanged(Path src, Path dst, boolean features) {
    linkUnchanged(
        src, dst, rel -> features || !rel.getName(0).toString().equals(StoreLayout.FEATURES_DIR));
  }

  /**
   * Links every file of {@code src} into {@code dst} (copies where links are not possible) whose
   * path relative to {@code src} passes {@code keep}.
   */
  static void linkUnchanged(Path src, Path dst, java.util.function.Predicate<Path> keep) {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> s = Files.walk(src)) {
      s.filter(Files::isRegularFile).forEach(files::add);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + src, e);
    }
    for (Path f : files) {
      Path rel = src.relativize(f);
      if (!keep.test(rel)) {
        continue;
      }
      Path target = dst.resolve(rel);
      try {
        Files.createDirectories(target.getParent());
        try {
          Files.createLink(target, f);
        } catch (IOException | UnsupportedOperationException e) {
          Files.copy(f, target);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot copy " + f + " to " + target, e);
      }
    }
  }

  static double seconds(long startNanos) {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}
