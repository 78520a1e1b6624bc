package io.fanout.spark.prepare;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.conf.options.QuantizeOptions;
import io.fanout.store.EdgeKeySort;
import io.fanout.store.IdRankTable;
import io.fanout.store.StoreLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Estimates what {@code prepare} will write and hold ({@link PreparePlan}) from the inputs' row
 * counts and the options, with no Spark job.
 *
 * <p>Store files follow their byte layout exactly ({@code docs/formats.md}) for the expected rows;
 * the id map (Parquet) is estimated at its uncompressed width. Shuffle files are Spark's UnsafeRows
 * (a 4-byte length, an 8-byte null bitset, 8 bytes per field, variable-length values rounded up to
 * 8) times a compression ratio. The three constants below are <b>fitted</b> to two runs of {@code
 * PrepareDryRunTest} (a generated graph with random float features, which LZ4 does not compress,
 * and cora, whose 0/1 features it does), not derived: LZ4 leaves about 18% of the rows' fixed-width
 * bytes (small ints, zero null bits, nulls), and about twice the Parquet bytes of the input's
 * feature column. The join shuffles of graphs whose id map is too large to broadcast use the edge
 * ratio, unmeasured. Other codecs scale the fit ({@link ShuffleCodec}); with {@code
 * spark.shuffle.compress=false} the rows are counted at their raw width.
 */
final class PreparePlanner {
  private PreparePlanner() {}

  /**
   * Shuffled bytes over raw UnsafeRow bytes of the vertex rows but their feature values (fitted,
   * see the class doc).
   */
  static final double VERTEX_SHUFFLE_RATIO = 0.18;

  /**
   * Shuffled bytes of feature values over their Parquet bytes on disk ({@link
   * InputStats#featureCompression}), capped at their raw size: Spark's LZ4 compresses less than
   * Parquet's encodings (fitted, see the class doc).
   */
  static final double FEATURE_SHUFFLE_FACTOR = 2.0;

  /** Shuffled bytes over raw UnsafeRow bytes of edge rows (fitted, see the class doc). */
  static final double EDGE_SHUFFLE_RATIO = 0.18;

  /**
   * Shuffled bytes over raw bytes of the {@link EdgeBlocks} of {@code --id-lookup task} (fitted: a
   * run's shuffle bytes less the plan's vertex term came to about 0.46 and 0.52 of the raw blocks
   * on {@code PrepareDryRunTest}'s generated graph and cora, 0.61 on {@code bench-prepare}'s 10 M /
   * 100 M graph, whose ids are less often small). ZStandard's factor applies: it compresses blocks
   * further than rows ({@code PrepareDryRunZstdShuffleTest}'s blocks took about 0.2 to 0.35 of
   * LZ4's bytes).
   */
  static final double EDGE_BLOCK_SHUFFLE_RATIO = 0.55;

  /** Bytes of a Parquet file besides its rows (footer, page headers), per id-map file. */
  private static final long PARQUET_FILE_OVERHEAD = 2048;

  /** The step that joins edge endpoints with the id map, when the map is not broadcast. */
  static final String JOIN_STEP = "join edge endpoints with the id map";

  /**
   * What the plan needs besides the input statistics; {@code encoding} is the feature encoding's id
   * ({@code --feature-encoding}, or a typed graph's for one type); {@code undirected}: every edge
   * but a self-loop is also stored reversed ({@code --undirected}; a typed graph's relations within
   * one type).
   */
  record Context(
      InputStats stats,
      FanoutConf conf,
      String encoding,
      int partitions,
      boolean weighted,
      boolean undirected,
      boolean stringIds,
      boolean graphPartitioner,
      boolean taskLookup,
      long broadcastThreshold,
      int shufflePartitions,
      ShuffleCodec codec) {}

  /** The plan, without disks (see {@link SpaceCheck#disks}). */
  static Estimate estimate(Context c) {
    InputStats s = c.stats;
    FanoutConf conf = c.conf;
    int k = Math.max(1, c.partitions);
    boolean undirected = c.undirected;
    long storeEdges = undirected ? 2 * s.edges : s.edges;
    int d = s.featureDim;
    String encoding = d == 0 ? "f32" : c.encoding;
    long rowBytes = featureRowBytes(encoding, d, conf);

    List<PreparePlan.Partition> parts = new ArrayList<>(k);
    long csr = 0;
    long nodes = 0;
    long feats = 0;
    long weights = 0;
    long maxV = 0;
    long maxE = 0;
    for (int p = 0; p < k; p++) {
      long n = share(s.vertices, k, p);
      long e = share(storeEdges, k, p);
      long pc = csrFileBytes(n, e);
      long pn = nodesFileBytes(n);
      long pf = d == 0 ? 0 : featureFileBytes(n, rowBytes);
      long pw = c.weighted ? weightFileBytes(e) : 0;
      csr += pc;
      nodes += pn;
      feats += pf;
      weights += pw;
      maxV = Math.max(maxV, n);
      maxE = Math.max(maxE, e);
      parts.add(new PreparePlan.Partition(p, n, e, pc + pn + pf + pw));
    }
    long idWidth = 4 + Math.round(s.idBytes) + (c.graphPartitioner ? 4 : 0);
    long idmap = s.vertices * idWidth + PARQUET_FILE_OVERHEAD * k;

    Map<String, Long> store = new LinkedHashMap<>();
    store.put("csr", csr);
    store.put("nodes", nodes);
    if (d > 0) {
      store.put("features", feats + quantizerParams(encoding, d));
    }
    if (c.weighted) {
      store.put("weights", weights);
    }
    store.put("idmap", idmap);

    // shuffle rows: _part, _id, _label, _split[, _feat], plus the routing key (as for edges below)
    long idVar = c.stringIds ? roundUp8(Math.round(s.idBytes)) : 0;
    long vertexRow = unsafeRow(d > 0 ? 6 : 5, idVar + (d > 0 ? arrayBytes(d) : 0));
    // _part, _key, _orig[, _weight], plus the routing key the shuffle ratio was fitted with: no
    // longer a shuffled column, but constant per partition it compressed to little (the edge
    // shuffle of bench-prepare at 5 M / 50 M went from 903 to 892 MB), so the fit stands
    long edgeRow = unsafeRow(c.weighted ? 5 : 4, 0);
    boolean broadcast =
        s.vertices <= conf.get(PrepareOptions.BROADCAST_VERTICES) || idmap <= c.broadcastThreshold;
    Map<String, Long> shuffle = new LinkedHashMap<>();
    long featureValueBytes = d > 0 ? roundUp8(4L * d) : 0;
    double featureRatio = c.codec.featureRatio(s.featureCompression);
    double vertexRatio = c.codec.rowRatio(VERTEX_SHUFFLE_RATIO);
    double edgeRatio = c.codec.rowRatio(EDGE_SHUFFLE_RATIO);
    shuffle.put(
        PrepareJob.VERTEX_FILES,
        Math.round(
            s.vertices
                * ((vertexRow - featureValueBytes) * vertexRatio
                    + featureValueBytes * featureRatio)));
    long joins = 0;
    if (!broadcast && !c.taskLookup) {
      long ids = unsafeRow(3, idVar); // (id, dense_id, part)
      long firstSide = unsafeRow(3, idVar); // (src, dst, weight), joined on src
      long secondSide = unsafeRow(6, 2 * idVar); // ... and (_sid, _sd, _sp), joined on dst
      double joinRatio = c.codec.unmeasuredRowRatio(EDGE_SHUFFLE_RATIO);
      joins = Math.round((s.edges * (firstSide + secondSide) + 2 * s.vertices * ids) * joinRatio);
      shuffle.put(JOIN_STEP, joins);
    }
    shuffle.put(
        PrepareJob.EDGE_FILES,
        c.taskLookup
            ? Math.round(
                storeEdges * EdgeBlocks.BYTES_PER_EDGE * c.codec.rowRatio(EDGE_BLOCK_SHUFFLE_RATIO))
            : Math.round(storeEdges * edgeRow * edgeRatio));

    List<PreparePlan.Stage> stages = new ArrayList<>();
    stages.add(
        new PreparePlan.Stage(
            PrepareJob.VERTEX_CHECKS, 256L * k, "aggregation buffers: counts per partition"));
    stages.add(
        new PreparePlan.Stage(
            PrepareJob.VERTEX_FILES,
            maxV * vertexRow,
            "the largest partition's vertex rows in the sort (spills beyond its share)"));
    if (!c.taskLookup && broadcast) {
      stages.add(
          new PreparePlan.Stage(
              JOIN_STEP,
              2 * s.vertices * unsafeRow(3, idVar),
              "the broadcast id map as a hash table, once per executor"));
    } else if (!c.taskLookup) {
      int sp = Math.max(1, c.shufflePartitions);
      stages.add(
          new PreparePlan.Stage(
              JOIN_STEP,
              s.vertices * unsafeRow(3, idVar) / sp,
              "the hash table of one of "
                  + sp
                  + " id-map partitions in a shuffled hash join (the edges stream through it)"));
    }
    boolean taskSort = !c.weighted && PrepareJob.sortsEdgesInTask(conf);
    stages.add(
        new PreparePlan.Stage(
            PrepareJob.EDGE_FILES,
            taskSort ? EdgeKeySort.peakBytes(maxE, maxV) : maxE * edgeRow,
            (taskSort
                    ? "the largest partition's edge keys in the csr task's counting sort (at most"
                        + " 24 bytes an edge while the key buffer doubles, then 20 an edge and 8 a"
                        + " vertex; does not spill, see --edge-sort)"
                    : "the largest partition's edge rows in the sort (spills beyond its share)")
                + "; the csr writer's buffers are fixed"
                + (c.taskLookup
                    ? "; the id rank tables it looks endpoints up in are mapped files (21 to 43"
                        + " bytes a vertex, in the page cache)"
                    : "")));

    List<String> notes = new ArrayList<>();
    notes.add(
        "partition sizes are the expected mean; "
            + conf.get(PrepareOptions.PARTITIONER).id()
            + (c.graphPartitioner ? " keeps each within 1.05x of it" : " varies around it"));
    if (undirected || conf.get(PrepareOptions.DEDUPE)) {
      notes.add(
          "edges are an upper bound: --undirected doubles every edge but self-loops, --dedupe"
              + " and --self-loops drop remove some");
    }
    if (!encoding.equals("f32")) {
      notes.add("--feature-encoding writes f32 feature files first: peak disk adds them");
    }
    if (conf.get(PrepareOptions.FEATURE_LAYOUT) != io.fanout.store.FeatureLayoutKind.IDENTITY) {
      notes.add(
          "--feature-layout rewrites each partition's feature file next to it in one task per"
              + " partition: peak disk adds a partition's file per running task, and a task holds"
              + " about 8 bytes a vertex of its partition");
    }
    if (c.graphPartitioner) {
      notes.add("the multilevel partitioner's own shuffles are not estimated");
    }
    String codecNote = c.codec.note(joins > 0);
    if (codecNote != null) {
      notes.add(codecNote);
    }
    if (EdgeSplitPlan.of(conf) != null) {
      notes.add("held-out val/test edges stay in the estimate (an upper bound)");
    }
    long stagingFeatures = encoding.equals("f32") || d == 0 ? 0 : 4L * d * s.vertices;
    if (c.taskLookup) {
      long tables = 0;
      for (PreparePlan.Partition p : parts) {
        tables += IdRankTable.fileBytes(p.vertices());
      }
      stagingFeatures += tables;
      notes.add(
          "--id-lookup task: the staging folder also holds the id rank tables ("
              + tables
              + " bytes), removed once the csr files are written");
    }
    return new Estimate(parts, store, shuffle, stages, notes, stagingFeatures);
  }

  /**
   * The plan's parts before the disks are probed; {@code stagingBytes} are files the staging folder
   * holds besides the store's (f32 features before encoding, id rank tables).
   */
  record Estimate(
      List<PreparePlan.Partition> partitions,
      Map<String, Long> store,
      Map<String, Long> shuffle,
      List<PreparePlan.Stage> stages,
      List<String> notes,
      long stagingBytes) {
    long storeBytes() {
      long s = stagingBytes;
      for (long v : store.values()) {
        s += v;
      }
      return s;
    }

    long shuffleBytes() {
      long s = 0;
      for (long v : shuffle.values()) {
        s += v;
      }
      return s;
    }
  }

  /** Bytes of a partition's CSR file: {@code n} destination vertices, {@code e} in-edges. */
  static long csrFileBytes(long n, long e) {
    return StoreLayout.HEADER_BYTES + 8 * (n + 1) + 4 * e;
  }

  /** Bytes of a partition's edge-weight file of {@code e} in-edges. */
  static long weightFileBytes(long e) {
    return StoreLayout.HEADER_BYTES + 4 * e;
  }

  /** Bytes of a partition's nodes file of {@code n} vertices (label and split). */
  static long nodesFileBytes(long n) {
    return StoreLayout.HEADER_BYTES + 5 * n;
  }

  /** Bytes of a partition's feature file of {@code n} rows of {@code rowBytes}. */
  static long featureFileBytes(long n, long rowBytes) {
    return StoreLayout.HEADER_BYTES + rowBytes * n;
  }

  /** Partition {@code p}'s share of {@code total} split as evenly as possible over {@code k}. */
  static long share(long total, int k, int p) {
    return total / k + (p < total % k ? 1 : 0);
  }

  static long featureRowBytes(String encoding, int dim, FanoutConf conf) {
    switch (encoding) {
      case "f16":
        return 2L * dim;
      case "int8":
        return dim;
      case "int4":
        return (dim + 1) / 2;
      case "pq":
        int g = QuantizeOptions.groupSize(conf, dim);
        return (dim + g - 1) / g;
      default:
        return 4L * dim;
    }
  }

  private static long quantizerParams(String encoding, int dim) {
    switch (encoding) {
      case "int8":
      case "int4":
        return StoreLayout.HEADER_BYTES + 8L * dim;
      case "pq":
        return StoreLayout.HEADER_BYTES + 4L * QuantizeOptions.PQ_CENTROIDS * dim;
      default:
        return 0;
    }
  }

  /** Bytes of one UnsafeRow of {@code fields} (at most 64) in a shuffle file. */
  static long unsafeRow(int fields, long variableBytes) {
    return 4 + 8 + 8L * fields + variableBytes;
  }

  /** Bytes of an UnsafeArrayData of {@code n} floats. */
  static long arrayBytes(int n) {
    return 8 + 8L * ((n + 63) / 64) + roundUp8(4L * n);
  }

  private static long roundUp8(long n) {
    return (n + 7) & ~7L;
  }
}
