package io.fanout.spark.prepare;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.conf.PerType;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.conf.options.QuantizeCommandOptions;
import io.fanout.conf.options.QuantizeOptions;
import io.fanout.graph.TypedStagedGraph;
import io.fanout.spark.internal.JobSteps;
import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.InvalidInputException;
import io.fanout.store.OutputCommit;
import io.fanout.store.StoreFeatureEncoding;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.store.StoreOutput;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * {@code quantize} on a typed store: each vertex type's f32 feature rows re-encoded as {@code
 * --feature-encoding} gives for that type (one value for every type, or {@code TYPE=ENC,...} as
 * {@code prepare} takes it), by the {@link FeatureQuantizer} that typed {@code prepare} runs on
 * each type's folder; every other file (the types left in f32 among them) is hard-linked. The new
 * store records the source's options with the encoding options of this run, as {@code prepare}
 * records them, so it is byte for byte the store {@code prepare} with the same {@code
 * --feature-encoding} writes (same fingerprint).
 */
final class TypedQuantizeJob {
  private final SparkSession spark;
  private final FanoutConf conf;
  private final Path source;
  private final StoreManifest src;
  private final Path out;

  TypedQuantizeJob(SparkSession spark, FanoutConf conf, Path source, StoreManifest src, Path out) {
    this.spark = spark;
    this.conf = conf;
    this.source = source;
    this.src = src;
    this.out = out;
  }

  PrepareOutcome run(long start) {
    FeatureLayoutKind layout = conf.get(QuantizeCommandOptions.FEATURE_LAYOUT);
    for (StoreManifest.TypeEntry t : src.types) {
      if (t.featureLayout != null) {
        throw new InvalidInputException(
            source
                + ": the feature rows of type '"
                + t.name
                + "' are stored in layout "
                + t.featureLayout
                + "; quantize reads stores with rows at their ids (quantize the store it was"
                + " made from, with --feature-layout "
                + t.featureLayout
                + ")");
      }
    }
    TypedStagedGraph shape =
        layout == FeatureLayoutKind.IDENTITY ? null : TypedStagedGraph.of(src, source.toString());
    QuantizeOptions.checkPq(conf);
    List<String> names = new ArrayList<>();
    src.types.forEach(t -> names.add(t.name));
    PerType<StoreFeatureEncoding> encodings = TypedOptionChecks.encodings(conf, names);
    List<StoreManifest.TypeEntry> encoded = new ArrayList<>();
    for (StoreManifest.TypeEntry t : src.types) {
      StoreFeatureEncoding e = encodings.of(t.name);
      if (t.featureDim == 0) {
        if (encodings.byType().containsKey(t.name) && e != StoreFeatureEncoding.F32) {
          throw new InvalidInputException(
              source
                  + ": --feature-encoding "
                  + t.name
                  + "="
                  + e.id()
                  + " but type '"
                  + t.name
                  + "' has no features; leave it out for this type");
        }
        continue;
      }
      if (!t.featureEncoding.equals(StoreFeatureEncoding.F32.id())) {
        throw new InvalidInputException(
            source
                + ": the features of type '"
                + t.name
                + "' are stored as "
                + t.featureEncoding
                + "; quantize reads f32 stores only (quantize the f32 store it was made from)");
      }
      if (e != StoreFeatureEncoding.F32) {
        encoded.add(t);
      }
    }
    Map<String, String> recorded = recorded(encodings);
    boolean overwrite = conf.get(PrepareOptions.OVERWRITE);
    if (QuantizeJob.plan(out, src, recorded, overwrite) == OutputCommit.Plan.SKIP) {
      return QuantizeJob.kept(out, start);
    }
    Path srcData = src.dataRoot(source);
    List<Path> reencoded = new ArrayList<>();
    List<String> steps = new ArrayList<>();
    for (StoreManifest.TypeEntry t : encoded) {
      reencoded.add(Path.of(StoreLayout.typeDir(t.name), StoreLayout.FEATURES_DIR));
      steps.add("encode features of type '" + t.name + "'");
    }
    if (shape != null) {
      steps.add(TypedPrepareJob.LAYOUT_STEP + layout.id());
    }
    OutputCommit.Run run = StoreOutput.COMMIT.begin(out);
    Path staging = run.dir();
    try {
      QuantizeJob.linkUnchanged(
          srcData, staging, rel -> reencoded.stream().noneMatch(rel::startsWith));
      JobSteps js = new JobSteps(spark, "quantize", steps);
      for (int i = 0; i < encoded.size(); i++) {
        StoreManifest.TypeEntry t = encoded.get(i);
        Path dir = Path.of(StoreLayout.typeDir(t.name));
        long[] starts = starts(t);
        FeatureQuantizer.Request q =
            FeatureQuantizer.request(conf, encodings.of(t.name), t.featureDim);
        js.run(
            steps.get(i),
            () ->
                new FeatureQuantizer(spark)
                    .quantize(srcData.resolve(dir), staging.resolve(dir), starts, t.featureDim, q));
      }
      if (shape != null) {
        js.run(
            steps.get(steps.size() - 1),
            () -> new TypedFeatureLayoutStage(spark).write(staging, shape, layout));
      }
      StoreManifest m = StoreManifest.fromJson(source.toString(), src.toJson());
      for (StoreManifest.TypeEntry t : m.types) {
        if (t.featureDim > 0) {
          t.featureEncoding = encodings.of(t.name).id();
          t.featureLayout = shape == null ? null : layout.id();
        }
      }
      m.options = recorded;
      m.files = StoreOutput.files(staging);
      if (!StoreOutput.COMMIT.publish(run, m, overwrite)) {
        return QuantizeJob.kept(out, start);
      }
      return new PrepareOutcome(out, m, false, QuantizeJob.seconds(start));
    } catch (Exception e) {
      StoreOutput.COMMIT.abort(run);
      throw SparkErrors.unwrap(e);
    }
  }

  /** Type-local first vertex of each of {@code t}'s partitions, the count as last element. */
  private long[] starts(StoreManifest.TypeEntry t) {
    long[] starts = new long[t.partitions + 1];
    for (int p = 0; p < t.partitions; p++) {
      starts[p + 1] = starts[p] + src.partitionTable.get(t.firstPartition + p).numVertices;
    }
    return starts;
  }

  /**
   * The source's recorded options with this run's {@code feature-encoding} and, when a type is
   * encoded as pq, the pq options, in the order typed {@code prepare} records them.
   */
  private Map<String, String> recorded(PerType<StoreFeatureEncoding> encodings) {
    boolean pq = encodings.fallback() == StoreFeatureEncoding.PQ;
    for (StoreFeatureEncoding e : encodings.byType().values()) {
      pq |= e == StoreFeatureEncoding.PQ;
    }
    Map<String, String> mine = new LinkedHashMap<>();
    mine.put(PrepareOptions.FEATURE_ENCODING.name(), conf.raw(PrepareOptions.FEATURE_ENCODING));
    FeatureLayoutKind layout = conf.get(QuantizeCommandOptions.FEATURE_LAYOUT);
    if (layout != FeatureLayoutKind.IDENTITY) {
      mine.put(PrepareOptions.FEATURE_LAYOUT.name(), layout.id());
    }
    if (pq) {
      for (OptionDef<?> d :
          List.of(
              QuantizeOptions.PQ_GROUP_SIZE,
              QuantizeOptions.PQ_SAMPLE_ROWS,
              QuantizeOptions.PQ_SEED)) {
        mine.put(d.name(), conf.raw(d));
      }
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (OptionDef<?> d : PrepareOptions.ALL) {
      String v = mine.containsKey(d.name()) ? mine.get(d.name()) : src.options.get(d.name());
      if (v != null) {
        out.put(d.name(), v);
      }
    }
    for (Map.Entry<String, String> e : src.options.entrySet()) {
      out.putIfAbsent(e.getKey(), e.getValue());
    }
    return out;
  }
}
