package io.fanout.spark.sample;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.OptionDef;
import io.fanout.conf.SharedOptions;
import io.fanout.conf.Task;
import io.fanout.conf.options.SampleMode;
import io.fanout.conf.options.SampleOptions;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.HeldOutCount;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedSchema;
import io.fanout.graph.VertexTable;
import io.fanout.sample.OrderedBatchStream;
import io.fanout.sample.SeedOrder;
import io.fanout.sample.TypedFanouts;
import io.fanout.sample.TypedHeldOutLinkSampler;
import io.fanout.sample.TypedLinkSampler;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.sample.TypedNeighborSampler;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.PartWriteObserver;
import io.fanout.shard.ShardManifest;
import io.fanout.shard.ShardOutput;
import io.fanout.shard.ShardPlan;
import io.fanout.shard.TypedShardPartWriter;
import io.fanout.spark.internal.Hooks;
import io.fanout.spark.internal.TaskTotals;
import io.fanout.store.Checksums;
import io.fanout.store.DisjointPaths;
import io.fanout.store.InvalidInputException;
import io.fanout.store.OutputCommit;
import io.fanout.store.OutputPaths;
import io.fanout.store.StoreLayout;
import java.io.PrintStream;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The {@code sample} job on a typed (heterogeneous) store: typed batches ({@link
 * TypedNeighborSampler}) of one seed type, or link-prediction batches of the store's link relation
 * ({@link TypedLinkSampler}, {@code --task link}), into typed shards ({@code docs/formats.md},
 * "Typed mini-batch shards"), in the replicated mode (every task opens the store and samples the
 * batches of one part file on {@code --threads} threads) or the partitioned mode ({@link
 * TypedPartitionedSampling}: every task serves one store partition of one type), which write the
 * same bytes; {@code --weighted} draws the relations with edge weights in proportion to them,
 * {@code --features f32|f16} inlines every featured type's rows ({@link
 * io.fanout.shard.TypedFeatureRows}), {@code --features int8|int4|pq} its rows as the store encodes
 * them (every featured type must keep that encoding), and {@code --batch-by-partition} draws each
 * batch's seeds from one store partition of the seed type. Validated on the driver before any task
 * runs; written under a staging directory, {@code manifest.json} published last, as one-type
 * shards.
 */
final class TypedSampleJob {
  private TypedSampleJob() {}

  static SampleOutcome run(
      SparkSession spark,
      FanoutConf conf,
      PrintStream err,
      TypedStoreOpener opener,
      String openerClass) {
    refuseUnbuilt(conf);
    int batchSize = SampleJob.positive(conf, SampleOptions.BATCH_SIZE);
    int epochs = SampleJob.positive(conf, SampleOptions.EPOCHS);
    int batchesPerShard = SampleJob.positive(conf, SampleOptions.BATCHES_PER_SHARD);
    int threads = SampleJob.positive(conf, SampleOptions.THREADS);
    String split = conf.get(SampleOptions.SPLIT).id();
    Path graph = Paths.get(conf.get(SampleOptions.GRAPH));
    Path output = OutputPaths.check(Paths.get(conf.get(SampleOptions.OUTPUT)), "--output");
    new DisjointPaths().input("--graph", graph).output("--output", output).check();

    String storeFingerprint = opener.fingerprint(graph);
    boolean verify = conf.get(SharedOptions.VERIFY) && conf.get(SampleOptions.VERIFY_STORE);
    TypedSchema schema;
    long seeds;
    long[] seedsPerPartition = null; // of the seed type, for a node task
    int splitCode = split.equals("all") ? SeedOrder.ALL : StoreLayout.splitCode(split);
    int seedType;
    TypedOwners owners;
    TypedLinkRequest link = null;
    long heldOutPositives = 0;
    boolean weighted = conf.get(SampleOptions.WEIGHTED);
    List<String> featureParamsCrc32c;
    try (TypedGraph g = opener.open(graph, verify)) {
      schema = g.schema();
      owners = TypedOwners.of(g);
      if (weighted) {
        requireWeights(g, graph);
      }
      FeatureEncoding features = FeatureEncoding.of(conf.get(SampleOptions.FEATURES).id());
      featureParamsCrc32c = features.stored() ? storedRows(features, g, graph) : null;
      if (conf.get(SampleOptions.TASK) == Task.LINK) {
        link = TypedLinkRequest.of(conf, g, graph, split);
        seedType = link.seedType(schema);
        if (link.heldOut() == null) {
          seeds = link.trainEdgeCount(g);
        } else {
          HeldOutCount pairs = link.heldOutCount(g, graph);
          seeds = pairs.pairs();
          heldOutPositives = pairs.positives();
        }
      } else {
        seedType = seedType(conf, schema, graph);
        seedsPerPartition =
            countSeeds(g.vertices(seedType), g.partitionStarts(seedType), splitCode);
        seeds = Arrays.stream(seedsPerPartition).sum();
      }
    }
    if (!opener.fingerprint(graph).equals(storeFingerprint)) {
      throw new InvalidInputException(graph + ": the graph store changed while being opened");
    }
    int[][] fanouts;
    try {
      fanouts = TypedFanouts.parse(conf.get(SampleOptions.FANOUTS), schema);
    } catch (IllegalArgumentException e) {
      throw new FanoutConfigException(
          "option 'fanouts' of sample has value '"
              + conf.raw(SampleOptions.FANOUTS)
              + "': "
              + e.getMessage());
    }
    String seedTypeName = schema.type(seedType).name();
    if (link != null && seeds == 0) {
      throw new InvalidInputException(
          graph
              + ": link relation '"
              + link.relationName()
              + "' has no "
              + (link.heldOut() == null ? "training edges" : link.heldOut() + " pairs"));
    }
    if (seeds == 0) {
      throw new InvalidInputException(
          graph
              + ": split '"
              + split
              + "' has no vertices of the seed type '"
              + seedTypeName
              + "'; expected at least one seed");
    }
    ShardPlan plan = new ShardPlan(seeds, batchSize, epochs, batchesPerShard);
    String fanoutsText = TypedFanouts.format(fanouts, schema);
    TypedSampleSpec spec =
        new TypedSampleSpec(
            graph.toAbsolutePath().toString(),
            storeFingerprint,
            openerClass,
            seedType,
            seedTypeName,
            splitCode,
            split,
            batchSize,
            fanouts,
            fanoutsText,
            epochs,
            conf.get(SampleOptions.SEED),
            conf.get(SampleOptions.COMPRESSION).id(),
            threads,
            plan,
            Hooks.className(spark, Hooks.PART_WRITE_OBSERVER, PartWriteObserver.class));
    spec.link = link;
    spec.weighted = weighted;
    spec.batchByPartition = conf.get(SampleOptions.BATCH_BY_PARTITION);
    spec.features = FeatureEncoding.of(conf.get(SampleOptions.FEATURES).id());
    spec.featureDims = featureDims(spec.features, schema, graph);
    spec.featureParamsCrc32c = featureParamsCrc32c;

    Map<String, String> request = new LinkedHashMap<>();
    request.put("store_fingerprint", storeFingerprint);
    request.put("kind", "typed");
    request.put("seed-type", seedTypeName);
    request.put("split", split);
    request.put("batch-size", Integer.toString(batchSize));
    request.put("fanouts", fanoutsText);
    request.put("epochs", Integer.toString(epochs));
    request.put("seed", Long.toString(spec.seed));
    request.put("features", spec.features.id());
    request.put("batches-per-shard", Integer.toString(batchesPerShard));
    request.put("compression", spec.compression);
    if (weighted) { // absent when false, so uniform requests keep their fingerprint
      request.put("weighted", "true");
    }
    if (spec.batchByPartition) { // absent when false, as weighted
      request.put("batch-by-partition", "true");
    }
    if (link != null) { // absent for node tasks, so their requests keep their fingerprint
      request.put("task", "link");
      request.put("link-relation", link.relationName());
      if (link.heldOut() == null) {
        request.put("negatives", link.negatives().negatives());
        request.put("num-negatives", Integer.toString(link.negatives().perPositive()));
      } else {
        request.put("negatives", "stored");
      }
    }
    String requestFingerprint = Checksums.sha256(request.toString());

    boolean overwrite = conf.get(SampleOptions.OVERWRITE);
    OutputCommit.Plan commit =
        ShardOutput.COMMIT.plan(output, requestFingerprint, request.toString(), overwrite);
    if (commit == OutputCommit.Plan.SKIP) {
      err.println("sample: " + output + " already holds these shards; nothing to do");
      return new SampleOutcome(output, ShardManifest.readAny(output), true, 0);
    }
    SampleMode mode = conf.get(SampleOptions.MODE);
    OutputCommit.Run run = ShardOutput.COMMIT.begin(output);
    long start = System.nanoTime();
    ShardManifest m;
    long shuffled;
    try (TaskTotals shuffle = TaskTotals.start(spark.sparkContext())) {
      JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
      err.println(
          "sample: typed store, seed type "
              + seedTypeName
              + ", "
              + mode.id()
              + " mode, "
              + epochs
              + " epoch(s) x "
              + plan.batchesPerEpoch()
              + " batches in "
              + plan.partsPerEpoch()
              + " part(s) per epoch");
      String dir = run.dir().toString();
      List<PartResult> parts =
          mode == SampleMode.PARTITIONED
              ? TypedPartitionedSampling.run(
                  jsc, spec, owners, spec.batchByPartition ? seedsPerPartition : null, dir)
              : ReplicatedSampling.onePerPart(
                  jsc,
                  spec.plan,
                  "sample " + spec.epochs + " typed epoch(s)",
                  g -> writePart(spec, dir, g));
      m = manifest(spec, schema, graph, conf, requestFingerprint, parts, heldOutPositives);
      shuffled = shuffle.shuffleBytes();
      if (!ShardOutput.COMMIT.publish(run, m, overwrite)) {
        err.println("sample: " + output + " already holds these shards; nothing to do");
        return new SampleOutcome(output, ShardManifest.readAny(output), true, 0);
      }
    } catch (RuntimeException | Error e) {
      ShardOutput.COMMIT.abort(run);
      throw SampleJob.unwrap(e);
    }
    return new SampleOutcome(output, m, false, (System.nanoTime() - start) / 1e9, shuffled);
  }

  /** Options whose typed version is not built: one line each, naming the option. */
  private static void refuseUnbuilt(FanoutConf conf) {
    if (conf.get(SampleOptions.TASK) != Task.LINK) {
      for (OptionDef<?> d : List.of(SampleOptions.NEGATIVES, SampleOptions.NUM_NEGATIVES)) {
        conf.refuseIgnored(d, "--task node samples no negatives; add --task link");
      }
    }
    if (conf.get(SampleOptions.BATCH_BY_PARTITION) && conf.get(SampleOptions.TASK) == Task.LINK) {
      throw new FanoutConfigException(
          "sample --batch-by-partition groups node seeds by store partition; --task link samples"
              + " edges and does not support it (leave --batch-by-partition out)");
    }
  }

  /**
   * {@code --features int8|int4|pq}: the store's encoded rows of every featured type, which must
   * all keep that encoding; per type the CRC32C of its parameters (null for a featureless type).
   */
  private static List<String> storedRows(FeatureEncoding enc, TypedGraph g, Path graph) {
    TypedSchema schema = g.schema();
    List<String> crcs = new ArrayList<>();
    for (int t = 0; t < schema.numTypes(); t++) {
      TypedSchema.VertexType vt = schema.type(t);
      if (!vt.hasFeatures()) {
        crcs.add(null);
        continue;
      }
      String crc = g.featureParamsCrc32c(t);
      FeatureTable table = g.features(t);
      if (!vt.featureEncoding().equals(enc.id()) || crc == null || table.decoder() == null) {
        throw new InvalidInputException(
            graph
                + ": --features "
                + enc.id()
                + " inlines the store's "
                + enc.id()
                + " rows, but type '"
                + vt.name()
                + "' keeps "
                + (vt.featureEncoding().equals(enc.id())
                    ? "no encoded rows or parameters in the store's manifest"
                    : vt.featureEncoding() + " features")
                + "; every featured type must keep "
                + enc.id()
                + " (quantize --feature-encoding "
                + enc.id()
                + "), or sample with --features f32|f16");
      }
      crcs.add(crc);
    }
    return crcs;
  }

  /**
   * Per type the width of the rows {@code --features} inlines (the type's stored width, 0 for a
   * featureless type); null for {@code none}. Refuses a store none of whose types has features.
   */
  private static int[] featureDims(FeatureEncoding enc, TypedSchema schema, Path graph) {
    if (enc == FeatureEncoding.NONE) {
      return null;
    }
    int[] dims = new int[schema.numTypes()];
    boolean any = false;
    for (int t = 0; t < dims.length; t++) {
      dims[t] = schema.type(t).featureDim();
      any |= dims[t] > 0;
    }
    if (!any) {
      throw new InvalidInputException(
          graph
              + ": no vertex type of the typed store has features (all read learned embeddings);"
              + " sample without --features "
              + enc.id());
    }
    return dims;
  }

  /** Refuses {@code --weighted} on a store none of whose relations has edge weights. */
  private static void requireWeights(TypedGraph g, Path graph) {
    for (int r = 0; r < g.schema().numRelations(); r++) {
      if (g.weights(r) != null) {
        return;
      }
    }
    throw new InvalidInputException(
        graph
            + ": no relation of the typed store has edge weights (no \"weighted\": true in"
            + " manifest.json's relations); prepare it with --weight-column COLUMN or a relation's"
            + " \"weight_column\" in --graph-spec, or sample without --weighted");
  }

  /** {@code --seed-type}, or the only labelled type. */
  private static int seedType(FanoutConf conf, TypedSchema schema, Path graph) {
    String named = conf.get(SampleOptions.SEED_TYPE);
    List<String> all = new ArrayList<>();
    List<String> labelled = new ArrayList<>();
    int only = -1;
    for (int t = 0; t < schema.numTypes(); t++) {
      all.add(schema.type(t).name());
      if (schema.type(t).labelled()) {
        labelled.add(schema.type(t).name());
        only = t;
      }
    }
    if (named != null && !named.isBlank()) {
      int t = schema.typeIndex(named.trim());
      if (t < 0) {
        throw new FanoutConfigException(
            "option 'seed-type' of sample is '"
                + named
                + "', not a vertex type of "
                + graph
                + "; its types are "
                + String.join(", ", all));
      }
      return t;
    }
    if (labelled.size() == 1) {
      return only;
    }
    throw new FanoutConfigException(
        labelled.isEmpty()
            ? graph
                + " has no labelled vertex type; name the seeds' type with --seed-type (one of "
                + String.join(", ", all)
                + ")"
            : graph
                + " has several labelled vertex types ("
                + String.join(", ", labelled)
                + "); name the seeds' type with --seed-type");
  }

  /** The seeds of the split per store partition of the type ({@code starts}, its count last). */
  private static long[] countSeeds(VertexTable vt, long[] starts, int splitCode) {
    long[] n = new long[starts.length - 1];
    for (int p = 0; p < n.length; p++) {
      for (int v = (int) starts[p]; v < starts[p + 1]; v++) {
        if (SeedOrder.inSplit(splitCode, vt.split(v))) {
          n[p]++;
        }
      }
    }
    return n;
  }

  /** One task: opens the store (once per JVM) and writes one part file. */
  static PartResult writePart(TypedSampleSpec spec, String staging, int globalPart) {
    int epoch = globalPart / spec.plan.partsPerEpoch();
    int part = globalPart % spec.plan.partsPerEpoch();
    TypedGraph g = TypedStoreCache.open(spec);
    int[] order = TypedStoreCache.order(g, spec, epoch);
    Supplier<OrderedBatchStream.Worker<TypedMiniBatch>> workers;
    if (spec.link == null) {
      TypedNeighborSampler sampler =
          new TypedNeighborSampler(g, spec.seedType, spec.fanouts, spec.seed, spec.weighted);
      workers = () -> sampler.newWorker()::sample;
    } else if (spec.link.heldOut() != null) {
      TypedHeldOutLinkSampler sampler =
          spec.link.heldOutSampler(
              g, TypedStoreCache.heldOutPairs(g, spec), spec.fanouts, spec.seed, spec.weighted);
      workers = () -> sampler.newWorker()::sample;
    } else {
      TypedLinkSampler sampler =
          spec.link.sampler(
              g, TypedStoreCache.trainEdges(g, spec), spec.fanouts, spec.seed, spec.weighted);
      workers = () -> sampler.newWorker()::sample;
    }
    return PartFiles.write(
        spec.plan,
        spec.partObserver,
        staging,
        epoch,
        part,
        tmp -> {
          try (OrderedBatchStream<TypedMiniBatch> batches =
              new OrderedBatchStream<>(
                  workers,
                  epoch,
                  order,
                  spec.batchSize,
                  spec.plan.firstBatch(part),
                  spec.plan.endBatch(part),
                  spec.threads,
                  2 * spec.threads + 2)) {
            return TypedShardPartWriter.write(
                tmp,
                batches,
                spec.featureTables(g),
                spec.features,
                spec.codec(),
                spec.metadata(epoch, part));
          }
        });
  }

  private static ShardManifest manifest(
      TypedSampleSpec spec,
      TypedSchema schema,
      Path graph,
      FanoutConf conf,
      String requestFingerprint,
      List<PartResult> parts,
      long heldOutPositives) {
    ShardManifest m = new ShardManifest();
    m.requestFingerprint = requestFingerprint;
    m.store = graph.toString();
    m.storeFingerprint = spec.storeFingerprint;
    m.storeVertices = schema.numVertices();
    for (TypedSchema.Relation r : schema.relations()) {
      m.storeEdges += r.edges();
    }
    m.split = spec.split;
    m.seedsPerEpoch = spec.plan.seeds();
    m.batchSize = spec.batchSize;
    m.fanouts = null;
    m.epochs = spec.epochs;
    m.seed = spec.seed;
    m.features = spec.features.id();
    m.featureDim = 0;
    m.compression = spec.compression;
    m.batchesPerShard = spec.plan.batchesPerShard();
    m.batchesPerEpoch = spec.plan.batchesPerEpoch();
    m.partsPerEpoch = spec.plan.partsPerEpoch();
    m.mode = conf.get(SampleOptions.MODE).id();
    m.options = conf.resolvedExcept(SampleOptions.NOT_RECORDED);
    m.options.put(SampleOptions.SEED_TYPE.name(), spec.seedTypeName);
    m.options.put(SampleOptions.FANOUTS.name(), spec.fanoutsText);
    if (!spec.batchByPartition) {
      m.options.remove(SampleOptions.BATCH_BY_PARTITION.name());
    }
    if (!spec.weighted) {
      m.options.remove(SampleOptions.WEIGHTED.name());
    }
    if (spec.link == null) {
      for (OptionDef<?> d : SampleOptions.LINK_ONLY) {
        m.options.remove(d.name());
      }
    } else if (spec.link.heldOut() != null) { // the pairs' negatives are the store's, not drawn
      m.options.put(SampleOptions.NEGATIVES.name(), "stored");
      m.options.remove(SampleOptions.NUM_NEGATIVES.name());
    }
    m.typed = ShardManifest.Typed.of(schema, spec.seedType, spec.fanouts);
    m.typed.featureDims = spec.featureDims == null ? null : spec.featureDims.clone();
    m.typed.featureParamsCrc32c = spec.featureParamsCrc32c;
    if (spec.link != null) {
      m.typed.multiLabel = false; // link rows carry pairs, not labels
      m.typed.linkRelation = spec.link.relationName();
      m.typed.linkReverses = new ArrayList<>();
      for (int r : spec.link.reverses()) {
        m.typed.linkReverses.add(schema.relation(r).name());
      }
    }
    // a batch of held-out pairs counts its positives as a training link batch does
    SampleJob.addParts(
        m,
        spec.plan,
        parts,
        spec.link != null && spec.link.heldOut() != null
            ? heldOutPositives * spec.epochs
            : spec.plan.seeds() * spec.epochs);
    return m;
  }
}
