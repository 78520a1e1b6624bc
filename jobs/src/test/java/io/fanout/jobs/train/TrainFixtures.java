package io.fanout.jobs.train;

import io.fanout.graph.ArrayCsrGraph;
import io.fanout.graph.VertexTable;
import io.fanout.sample.MiniBatch;
import io.fanout.sample.NeighborSampler;
import io.fanout.shard.BatchCodec;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.ShardFileWriter;
import io.fanout.shard.ShardManifest;
import io.fanout.shard.ShardOutput;
import io.fanout.store.Checksums;
import io.fanout.store.CsrFileWriter;
import io.fanout.store.FeatureEncoder;
import io.fanout.store.FeatureFileWriter;
import io.fanout.store.FeatureParams;
import io.fanout.store.NodesFileWriter;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.store.StoreOutput;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Types;

/**
 * Small graph stores and shard sets written with the real writers, without Spark: a homophilous
 * random graph of 3 classes whose features carry a noisy class signal.
 */
final class TrainFixtures {
  private TrainFixtures() {}

  static final class Graph {
    int[][] rows;
    float[][] features;
    int[] labels;
    byte[] splits;

    int n() {
      return rows.length;
    }
  }

  static Graph graph(long seed, int n, int dim) {
    SplittableRandom r = new SplittableRandom(seed);
    Graph g = new Graph();
    g.rows = new int[n][];
    g.features = new float[n][dim];
    g.labels = new int[n];
    g.splits = new byte[n];
    java.util.List<java.util.Set<Integer>> adj = new java.util.ArrayList<>();
    for (int v = 0; v < n; v++) {
      adj.add(new java.util.TreeSet<>());
      g.labels[v] = v % 3;
      g.splits[v] = (byte) (1 + r.nextInt(3));
      for (int j = 0; j < dim; j++) {
        g.features[v][j] = (float) r.nextGaussian() + (j % 3 == v % 3 ? 1.0f : 0f);
      }
    }
    for (int v = 0; v < n; v++) {
      for (int k = 0; k < 4; k++) {
        int u = r.nextInt(n);
        if (k < 3) {
          u = Math.min(n - 1, u - u % 3 + v % 3);
          u = u % 3 == v % 3 ? u : v % 3;
        }
        if (u != v) {
          adj.get(v).add(u);
          adj.get(u).add(v);
        }
      }
    }
    for (int v = 0; v < n; v++) {
      g.rows[v] = adj.get(v).stream().mapToInt(Integer::intValue).toArray();
    }
    return g;
  }

  static long originalId(int dense) {
    return 1_000_000L + 7L * dense;
  }

  /** Writes {@code g} as a one-partition store with an idmap. */
  static void writeStore(Path store, Graph g) throws IOException {
    writeStore(store, g, "f32");
  }

  /**
   * As {@link #writeStore(Path, Graph)}, the features stored in {@code encoding} ({@code f32},
   * {@code f16}, {@code int8}, {@code int4} or {@code pq}; see {@link #featureParams}).
   */
  static void writeStore(Path store, Graph g, String encoding) throws IOException {
    io.fanout.store.OutputCommit.Run run = StoreOutput.COMMIT.begin(store);
    Path staging = run.dir();
    int n = g.n();
    int dim = g.features[0].length;
    FeatureParams params = featureParams(g, encoding);
    FeatureEncoder encoder = new FeatureEncoder(params);
    byte[] encoded = new byte[params.rowBytes()];
    long edges = 0;
    try (CsrFileWriter csr = new CsrFileWriter(staging.resolve(StoreLayout.csrFile(0)), 0, 0, n);
        NodesFileWriter nodes =
            new NodesFileWriter(staging.resolve(StoreLayout.nodesFile(0)), 0, 0, n)) {
      FeatureFileWriter feat =
          new FeatureFileWriter(staging.resolve(StoreLayout.featuresFile(0)), 0, n, params);
      for (int v = 0; v < n; v++) {
        for (int u : g.rows[v]) {
          csr.addNeighbor(u);
        }
        csr.endRow();
        edges += g.rows[v].length;
        nodes.write(g.labels[v], g.splits[v]);
        encoder.encode(g.features[v], 0, encoded);
        feat.writeEncodedRow(encoded);
      }
      csr.finish();
      nodes.finish();
      feat.finish();
    }
    if (FeatureParams.hasFile(params.encoding)) {
      params.write(staging.resolve(StoreLayout.FEATURE_PARAMS));
    }
    Path idmap = staging.resolve(StoreLayout.IDMAP_DIR);
    Files.createDirectories(idmap);
    MessageType schema =
        Types.buildMessage()
            .required(PrimitiveTypeName.INT32)
            .named("dense_id")
            .required(PrimitiveTypeName.INT64)
            .named("id")
            .named("spark_schema");
    SimpleGroupFactory f = new SimpleGroupFactory(schema);
    for (int part = 0; part < 2; part++) {
      try (ParquetWriter<Group> w =
          ExampleParquetWriter.builder(
                  new LocalOutputFile(idmap.resolve("part-0000" + part + ".parquet")))
              .withConf(new PlainParquetConfiguration())
              .withType(schema)
              .withCompressionCodec(CompressionCodecName.SNAPPY)
              .build()) {
        for (int v = part; v < n; v += 2) {
          w.write(f.newGroup().append("dense_id", v).append("id", originalId(v)));
        }
      }
    }
    StoreManifest m = new StoreManifest();
    m.partitionTable.add(new StoreManifest.Partition(0, 0, n, edges));
    m.vertices = n;
    m.edges = edges;
    m.partitions = 1;
    m.featureDim = dim;
    m.featureEncoding = encoding;
    m.classes = 3;
    m.idType = "long";
    m.inputFingerprint = "fixture-" + n + "-" + dim;
    m.files = StoreOutput.files(staging);
    StoreOutput.COMMIT.publish(run, m, true);
  }

  /**
   * The parameters of {@code g}'s features in {@code encoding}: int8 and int4 from the per-column
   * ranges; pq in groups of 3 columns with 8 centroids per group, taken from spread-out rows.
   */
  static FeatureParams featureParams(Graph g, String encoding) {
    int dim = g.features[0].length;
    int code = StoreLayout.encodingCode(encoding);
    switch (code) {
      case StoreLayout.ENCODING_INT8, StoreLayout.ENCODING_INT4 -> {
        float[] min = g.features[0].clone();
        float[] max = g.features[0].clone();
        for (float[] row : g.features) {
          for (int c = 0; c < dim; c++) {
            min[c] = Math.min(min[c], row[c]);
            max[c] = Math.max(max[c], row[c]);
          }
        }
        return FeatureParams.affine(code, min, max);
      }
      case StoreLayout.ENCODING_PQ -> {
        int groupSize = 3;
        int centroids = 8;
        float[][] books = new float[(dim + groupSize - 1) / groupSize][];
        for (int gi = 0; gi < books.length; gi++) {
          int col = gi * groupSize;
          int w = Math.min(groupSize, dim - col);
          books[gi] = new float[centroids * w];
          for (int k = 0; k < centroids; k++) {
            float[] row = g.features[(int) ((long) k * 37 % g.n())];
            System.arraycopy(row, col, books[gi], k * w, w);
          }
        }
        return FeatureParams.pq(dim, groupSize, centroids, books);
      }
      default -> {
        return FeatureParams.plain(code, dim);
      }
    }
  }

  /** The arguments of {@code train --graph store --shards shards --model-dir model more...}. */
  static String[] trainArgs(Path store, Path shards, Path model, String... more) {
    String[] head = {
      "train",
      "--graph",
      store.toString(),
      "--shards",
      shards.toString(),
      "--model-dir",
      model.toString()
    };
    String[] out = java.util.Arrays.copyOf(head, head.length + more.length);
    System.arraycopy(more, 0, out, head.length, more.length);
    return out;
  }

  /** Samples {@code epochs} epochs of training shards, node ids only. */
  static void writeShards(
      Path dir, Path store, Graph g, int[] fanouts, int batchSize, int epochs, long seed)
      throws IOException {
    writeShards(dir, store, g, fanouts, batchSize, epochs, seed, FeatureEncoding.NONE);
  }

  /** As above, inlining each batch's node features in {@code enc} (NONE: node ids only). */
  static void writeShards(
      Path dir,
      Path store,
      Graph g,
      int[] fanouts,
      int batchSize,
      int epochs,
      long seed,
      FeatureEncoding enc)
      throws IOException {
    Files.createDirectories(dir);
    io.fanout.store.OutputCommit.Run run = ShardOutput.COMMIT.begin(dir);
    Path staging = run.dir();
    ShardManifest sm = new ShardManifest();
    long[] indptr = new long[g.n() + 1];
    int e = 0;
    for (int v = 0; v < g.n(); v++) {
      e += g.rows[v].length;
      indptr[v + 1] = e;
    }
    int[] idx = new int[e];
    for (int v = 0, p = 0; v < g.n(); v++) {
      for (int u : g.rows[v]) {
        idx[p++] = u;
      }
    }
    VertexTable vt =
        new VertexTable() {
          @Override
          public int numVertices() {
            return g.n();
          }

          @Override
          public int label(int v) {
            return g.labels[v];
          }

          @Override
          public byte split(int v) {
            return g.splits[v];
          }
        };
    NeighborSampler s = new NeighborSampler(new ArrayCsrGraph(indptr, idx), vt, fanouts, seed);
    NeighborSampler.Worker w = s.newWorker();
    int[] train =
        java.util.stream.IntStream.range(0, g.n()).filter(v -> g.splits[v] == 1).toArray();
    int batches = (train.length + batchSize - 1) / batchSize;
    for (int ep = 0; ep < epochs; ep++) {
      String rel = String.format("epoch-%04d/part-00000.parquet", ep);
      Path f = staging.resolve(rel);
      Files.createDirectories(f.getParent());
      try (ShardFileWriter sw =
          new ShardFileWriter(f, CompressionCodecName.UNCOMPRESSED, Map.of())) {
        for (int b = 0, from = 0; from < train.length; b++, from += batchSize) {
          MiniBatch mb = w.sample(ep, b, train, from, Math.min(batchSize, train.length - from));
          float[] x = null;
          if (enc != FeatureEncoding.NONE) {
            int dim = g.features[0].length;
            x = new float[mb.nodes().length * dim];
            for (int i = 0; i < mb.nodes().length; i++) {
              System.arraycopy(g.features[mb.nodes()[i]], 0, x, i * dim, dim);
            }
          }
          sw.write(BatchCodec.encode(mb, x, enc));
        }
      }
      ShardManifest.Part part = new ShardManifest.Part();
      part.path = rel;
      part.epoch = ep;
      part.part = 0;
      part.firstBatch = 0;
      part.endBatch = batches;
      part.seeds = train.length;
      part.bytes = Files.size(f);
      part.crc32c = Checksums.crc32c(f);
      sm.files.add(part);
    }
    sm.requestFingerprint = "fixture";
    sm.store = store.toString();
    sm.storeFingerprint = ShardManifest.storeFingerprint(store);
    sm.storeVertices = g.n();
    sm.storeEdges = idx.length;
    sm.split = "train";
    sm.seedsPerEpoch = train.length;
    sm.batchSize = batchSize;
    sm.fanouts = fanouts.clone();
    sm.epochs = epochs;
    sm.seed = seed;
    sm.features = enc.id();
    sm.featureDim = enc == FeatureEncoding.NONE ? 0 : g.features[0].length;
    sm.compression = "uncompressed";
    sm.batchesPerShard = batches;
    sm.batchesPerEpoch = batches;
    sm.partsPerEpoch = 1;
    sm.totals.batches = (long) batches * epochs;
    ShardOutput.COMMIT.publish(run, sm, true);
  }
}
