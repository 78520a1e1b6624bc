package io.fanout.bench.sample;

import static io.fanout.conf.options.BenchSampleOptions.*;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fanout.cli.Command;
import io.fanout.cli.CommandContext;
import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.BenchSampleOptions;
import io.fanout.graph.CsrGraph;
import io.fanout.graph.EdgeWeights;
import io.fanout.graph.GraphStore;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.graph.VertexTable;
import io.fanout.sample.BatchStream;
import io.fanout.sample.Fanouts;
import io.fanout.sample.MiniBatch;
import io.fanout.sample.NeighborSampler;
import io.fanout.sample.OrderedBatchStream;
import io.fanout.sample.SampleHash;
import io.fanout.sample.SeedOrder;
import io.fanout.sample.TypedFanouts;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.sample.TypedNeighborSampler;
import io.fanout.shard.BatchCodec;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.ShardFileReader;
import io.fanout.shard.ShardPartWriter;
import io.fanout.store.DisjointPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.ColumnIOFactory;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.io.RecordReader;
import org.apache.parquet.schema.MessageType;

/**
 * {@code bin/fanout bench-sample}: sampling throughput on 1 and 2 threads next to the random-read
 * rate of the same graph's adjacency (measured in the same run), and the cost of the shard encoding
 * (raw little-endian BINARY against nested LIST columns). With {@code --num-types T} it also times
 * the typed sampler on a generated typed graph of the same size ({@link SyntheticTypedGraph}) next
 * to the one-type sampler, in the same run; with a typed store as {@code --graph} it times the
 * typed sampler on the store against the one-type sampler on the same vertices and edges as one
 * type ({@link StoreTypedGraphs}), and with {@code --weighted} also the typed sampler drawing the
 * store's weighted relations by weight ({@code typed_weighted_*}). Prints one JSON object.
 */
public final class BenchSampleCommand implements Command {
  @Override
  public String name() {
    return "bench-sample";
  }

  @Override
  public String summary() {
    return "Benchmark the sampler and shard encodings against random reads (JSON)";
  }

  @Override
  public List<OptionDef<?>> options() {
    return BenchSampleOptions.ALL;
  }

  @Override
  public int run(CommandContext ctx) throws Exception {
    FanoutConf conf = ctx.conf();
    int[] fanouts;
    try {
      fanouts = Fanouts.parse(conf.get(FANOUTS));
    } catch (IllegalArgumentException e) {
      throw new io.fanout.conf.FanoutConfigException("option 'fanouts': " + e.getMessage());
    }
    int batchSize = conf.get(BATCH_SIZE);
    int repeat = Math.max(1, conf.get(REPEAT));
    int tableInts = randomReadTableInts(conf.get(RANDOM_READ_MIB));
    long seed = conf.get(SEED);
    Map<String, Object> out = new LinkedHashMap<>();
    CsrGraph graph;
    VertexTable vertices;
    GraphStore store = null;
    EdgeWeights weights = null;
    TypedGraphStore typedStore = null;
    TypedGraph typedGraph = null;
    int typedSeedType = 0;
    boolean weighted = conf.get(WEIGHTED);
    if (!conf.get(WORK_DIR).isEmpty()) {
      new DisjointPaths()
          .input("--graph", conf.get(GRAPH).isEmpty() ? null : Paths.get(conf.get(GRAPH)))
          .output("--work-dir", Paths.get(conf.get(WORK_DIR)))
          .check();
    }
    Path dir = workDir(conf);
    long t0 = System.nanoTime();
    if (conf.get(GRAPH).isEmpty()) {
      ctx.err().println("bench-sample: generating the graph ...");
      graph =
          SyntheticGraph.generate(
              Math.toIntExact(conf.get(NUM_VERTICES)), conf.get(NUM_EDGES), seed);
      vertices = SyntheticGraph.vertices(graph.numVertices());
      float[] w = weighted ? SyntheticGraph.weights(graph.numEdges(), seed) : null;
      weights = w == null ? null : p -> w[(int) p];
      out.put("graph", "generated power-law, in-memory");
      int mapped = conf.get(MAPPED_PARTITIONS);
      if (mapped > 0) {
        Path storeDir = dir.resolve("synthetic.store");
        ctx.err().println("bench-sample: writing the store " + storeDir + " ...");
        SyntheticGraph.writeStore(graph, vertices, w, storeDir, mapped);
        graph = null;
        store = GraphStore.open(storeDir);
        graph = store.csr();
        vertices = store.vertices();
        weights = weighted ? store.weights() : null;
        out.put("graph", "generated power-law, memory-mapped store of " + mapped + " partitions");
      }
    } else if (TypedGraphStore.isTyped(Paths.get(conf.get(GRAPH)))) {
      if (conf.get(TYPES) > 0) {
        throw new io.fanout.conf.FanoutConfigException(
            "a typed --graph store is timed with its own types; leave --num-types out");
      }
      ctx.err().println("bench-sample: copying the typed store onto the heap ...");
      typedStore = TypedGraphStore.open(Paths.get(conf.get(GRAPH)), false);
      typedGraph = StoreTypedGraphs.onHeap(typedStore);
      if (weighted && !StoreTypedGraphs.weighted(typedGraph)) {
        throw new io.fanout.conf.FanoutConfigException(
            "--weighted: the typed store "
                + conf.get(GRAPH)
                + " has no weighted relation; prepare it with --weight-column (or a relation's"
                + " weight_column), or leave --weighted out");
      }
      typedSeedType = StoreTypedGraphs.seedType(typedGraph.schema());
      graph = StoreTypedGraphs.merged(typedGraph);
      vertices = StoreTypedGraphs.mergedVertices(typedGraph, typedSeedType);
      out.put(
          "graph",
          conf.get(GRAPH)
              + " (typed store; the one-type sampler reads its vertices and edges as one type and"
              + " one relation; both on the heap)");
    } else {
      store = GraphStore.open(Paths.get(conf.get(GRAPH)));
      graph = store.csr();
      vertices = store.vertices();
      weights = weighted ? store.weights() : null; // refuses a store without weights
      out.put("graph", conf.get(GRAPH) + " (memory-mapped store)");
    }
    TypedNeighborSampler typedSampler = null;
    TypedNeighborSampler typedWeightedSampler = null;
    int[] typedOrder = null;
    if (conf.get(TYPES) > 0 && !conf.get(GRAPH).isEmpty()) {
      throw new io.fanout.conf.FanoutConfigException(
          "option 'types' times a generated typed graph; leave --graph out (or give a typed"
              + " store as --graph)");
    }
    if (conf.get(TYPES) > 0) {
      ctx.err().println("bench-sample: generating the typed graph ...");
      typedGraph =
          SyntheticTypedGraph.generate(
              conf.get(TYPES), Math.toIntExact(conf.get(NUM_VERTICES)), conf.get(NUM_EDGES), seed);
    }
    if (typedGraph != null) {
      TypedGraph typed = typedGraph;
      String typedText = conf.get(TYPED_FANOUTS);
      int[][] perRelation;
      try {
        perRelation =
            TypedFanouts.parse(
                typedText.isBlank() ? Fanouts.format(fanouts) : typedText, typed.schema());
      } catch (IllegalArgumentException e) {
        throw new io.fanout.conf.FanoutConfigException("option 'typed-fanouts': " + e.getMessage());
      }
      typedSampler = new TypedNeighborSampler(typed, typedSeedType, perRelation, seed);
      typedOrder = typedSampler.order(SeedOrder.ALL, 0);
      if (weighted && typedStore != null) {
        // the store's weighted relations in proportion to their weights, the others uniformly
        typedWeightedSampler =
            new TypedNeighborSampler(typed, typedSeedType, perRelation, seed, true);
      }
      Map<String, Object> tg = new LinkedHashMap<>();
      tg.put(
          "graph",
          typedStore != null
              ? conf.get(GRAPH) + " (typed store, on the heap)"
              : "generated power-law per relation, in-memory");
      tg.put("types", typed.schema().numTypes());
      tg.put("relations", typed.schema().numRelations());
      tg.put("vertices", typed.schema().numVertices());
      long typedEdges = 0;
      for (int r = 0; r < typed.schema().numRelations(); r++) {
        typedEdges += typed.inNeighbors(r).numEdges();
      }
      tg.put("edges", typedEdges);
      tg.put("seed_type", typed.schema().type(typedSeedType).name());
      tg.put("seeds", typedOrder.length);
      tg.put("fanouts", TypedFanouts.format(perRelation, typed.schema()));
      out.put("typed_graph", tg);
    }
    out.put("vertices", graph.numVertices());
    out.put("edges", graph.numEdges());
    out.put("graph_seconds", secs(t0));
    out.put("fanouts", Fanouts.format(fanouts));
    out.put("batch_size", batchSize);
    out.put("weighted", weighted);
    out.put("available_processors", Runtime.getRuntime().availableProcessors());

    // The limit: independent random 4-byte reads from a plain int table (1 GiB unless set: larger
    // than the caches), the same measure as the shared notes' "random memory reads per second".
    int[] table = new int[tableInts];
    for (int i = 0; i < table.length; i++) {
      table[i] = i;
    }
    NeighborSampler sampler = new NeighborSampler(graph, vertices, fanouts, seed);
    NeighborSampler weightedSampler =
        weights == null ? null : new NeighborSampler(graph, vertices, weights, fanouts, seed);
    int[] order = SeedOrder.order(vertices, SeedOrder.ALL, seed, 0);
    if (typedStore != null) {
      // the typed sampler's seeds in the same order, as global ids
      int first = (int) typedGraph.schema().type(typedSeedType).firstVertex();
      order = new int[typedOrder.length];
      for (int i = 0; i < order.length; i++) {
        order[i] = first + typedOrder[i];
      }
    }
    int batches = Math.min(conf.get(BATCHES), SeedOrder.batches(order.length, batchSize));
    List<Map<String, Object>> rows = new ArrayList<>();
    for (int threads = 1; threads <= 2; threads++) {
      ctx.err().println("bench-sample: " + threads + " thread(s) ...");
      double reads = 0;
      double viaCsr = 0;
      for (int r = 0; r < repeat; r++) {
        reads = Math.max(reads, tableRandomReads(table, threads, tableReadsPerThread(tableInts)));
        viaCsr = Math.max(viaCsr, randomReads(graph, threads, 20_000_000L));
      }
      // Warm up every sampler's code paths, then time them in alternating rounds, so that a burst
      // of load on a shared host falls on all of them alike; each reports its best round.
      int tb =
          typedSampler == null
              ? 0
              : Math.min(conf.get(BATCHES), SeedOrder.batches(typedOrder.length, batchSize));
      drain(new BatchStream(sampler, 1, order, batchSize, 0, Math.min(4, batches), threads, 8));
      if (typedSampler != null) {
        drainTyped(typedSampler, 1, typedOrder, batchSize, Math.min(4, tb), threads);
      }
      if (weightedSampler != null) {
        drain(
            new BatchStream(
                weightedSampler, 1, order, batchSize, 0, Math.min(4, batches), threads, 8));
      }
      if (typedWeightedSampler != null) {
        drainTyped(typedWeightedSampler, 1, typedOrder, batchSize, Math.min(4, tb), threads);
      }
      List<Double> oneRounds = new ArrayList<>();
      List<Double> typedRounds = new ArrayList<>();
      List<Double> weightedRounds = new ArrayList<>();
      List<Double> typedWeightedRounds = new ArrayList<>();
      long twEdges = 0;
      long edges = 0;
      long tEdges = 0;
      long wEdges = 0;
      for (int i = 0; i < repeat; i++) {
        // Odd rounds time the typed sampler first, so that a drift of the host's load within a
        // round pair does not always fall on the same sampler; each sampler starts on a collected
        // heap, so neither pays for the other's garbage.
        if (typedSampler != null && i % 2 == 1) {
          collect();
          long start = System.nanoTime();
          tEdges = drainTyped(typedSampler, 0, typedOrder, batchSize, tb, threads);
          typedRounds.add(secs(start));
        }
        collect();
        long start = System.nanoTime();
        edges = drain(new BatchStream(sampler, 0, order, batchSize, 0, batches, threads, 8));
        oneRounds.add(secs(start));
        if (typedSampler != null && i % 2 == 0) {
          collect();
          start = System.nanoTime();
          tEdges = drainTyped(typedSampler, 0, typedOrder, batchSize, tb, threads);
          typedRounds.add(secs(start));
        }
        if (weightedSampler != null) {
          collect();
          start = System.nanoTime();
          wEdges =
              drain(new BatchStream(weightedSampler, 0, order, batchSize, 0, batches, threads, 8));
          weightedRounds.add(secs(start));
        }
        if (typedWeightedSampler != null) {
          collect();
          start = System.nanoTime();
          twEdges = drainTyped(typedWeightedSampler, 0, typedOrder, batchSize, tb, threads);
          typedWeightedRounds.add(secs(start));
        }
      }
      double s = java.util.Collections.min(oneRounds);
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("threads", threads);
      r.put("batches", batches);
      r.put("sampled_edges", edges);
      r.put("seconds", s);
      r.put("seconds_per_round", oneRounds);
      r.put("sampled_edges_per_s", edges / s);
      r.put("random_reads_per_s", reads);
      r.put("random_reads_per_s_via_csr", viaCsr);
      r.put("ratio_to_random_reads", (edges / s) / reads);
      r.put("target_ratio_vs_half_reads", (edges / s) / (reads / 2) / 0.4);
      if (typedSampler != null) {
        double ts = java.util.Collections.min(typedRounds);
        r.put("typed_batches", tb);
        r.put("typed_sampled_edges", tEdges);
        r.put("typed_seconds", ts);
        r.put("typed_seconds_per_round", typedRounds);
        r.put("typed_sampled_edges_per_s", tEdges / ts);
        r.put("typed_ratio_to_one_type", (tEdges / ts) / (edges / s));
        // each round pair's ratio: both samplers timed back to back under the same load
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < repeat; i++) {
          ratios.add((tEdges / typedRounds.get(i)) / (edges / oneRounds.get(i)));
        }
        r.put("typed_ratio_per_round", ratios);
        r.put("typed_ratio_median", median(ratios));
      }
      if (weightedSampler != null) {
        double ws = java.util.Collections.min(weightedRounds);
        r.put("weighted_sampled_edges", wEdges);
        r.put("weighted_seconds", ws);
        r.put("weighted_sampled_edges_per_s", wEdges / ws);
        r.put("weighted_ratio_to_uniform", (wEdges / ws) / (edges / s));
        r.put("weighted_ratio_to_random_reads", (wEdges / ws) / reads);
      }
      if (typedWeightedSampler != null) {
        double tws = java.util.Collections.min(typedWeightedRounds);
        double ts = java.util.Collections.min(typedRounds);
        r.put("typed_weighted_sampled_edges", twEdges);
        r.put("typed_weighted_seconds", tws);
        r.put("typed_weighted_seconds_per_round", typedWeightedRounds);
        r.put("typed_weighted_sampled_edges_per_s", twEdges / tws);
        r.put("typed_weighted_ratio_to_uniform", (twEdges / tws) / (tEdges / ts));
      }
      rows.add(r);
    }
    out.put("sampling", rows);

    int shardBatches = Math.min(conf.get(SHARD_BATCHES), batches);
    List<MiniBatch> sample = new ArrayList<>();
    try (BatchStream s = new BatchStream(sampler, 0, order, batchSize, 0, shardBatches, 2, 4)) {
      s.forEachRemaining(sample::add);
    }
    long edges = 0;
    long ints = 0;
    for (MiniBatch b : sample) {
      edges += b.numEdges();
      ints += b.nodes().length + b.numEdges() + b.labels().length + b.layerSizes().length;
      for (int h = 1; h <= b.layers(); h++) {
        ints += b.indptr(h).length;
      }
    }
    Map<String, Object> enc = new LinkedHashMap<>();
    enc.put("batches", sample.size());
    enc.put("sampled_edges", edges);
    enc.put("raw_array_bytes", 4 * ints);
    for (CompressionCodecName codec :
        new CompressionCodecName[] {
          CompressionCodecName.UNCOMPRESSED, CompressionCodecName.SNAPPY, CompressionCodecName.ZSTD
        }) {
      // A warm-up round, then the best of the timed rounds.
      Map<String, Object> bestBinary = binary(dir, sample, codec, edges, 4 * ints);
      Map<String, Object> bestList = list(dir, sample, codec, edges, 4 * ints);
      bestBinary = null;
      bestList = null;
      for (int r = 0; r < repeat; r++) {
        bestBinary = best(bestBinary, binary(dir, sample, codec, edges, 4 * ints));
        bestList = best(bestList, list(dir, sample, codec, edges, 4 * ints));
      }
      enc.put("binary_" + codec.name().toLowerCase(), bestBinary);
      enc.put("list_" + codec.name().toLowerCase(), bestList);
    }
    out.put("shard_encoding", enc);
    out.put("peak_rss_mib", peakRssMib());
    out.put("heap_max_mib", Runtime.getRuntime().maxMemory() >> 20);
    ctx.out()
        .println(
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(out));
    if (store != null) {
      store.close();
    }
    if (typedStore != null) {
      typedStore.close();
    }
    if (conf.get(WORK_DIR).isEmpty()) {
      io.fanout.store.FileTrees.deleteRecursively(dir);
    }
    return 0;
  }

  private static Path workDir(FanoutConf conf) throws IOException {
    return conf.get(WORK_DIR).isEmpty()
        ? Files.createTempDirectory("fanout-bench-sample")
        : Files.createDirectories(Paths.get(conf.get(WORK_DIR)));
  }

  private static Map<String, Object> binary(
      Path dir, List<MiniBatch> batches, CompressionCodecName codec, long edges, long rawBytes)
      throws IOException {
    Path f = dir.resolve("binary-" + codec + ".parquet");
    Files.deleteIfExists(f);
    long t = System.nanoTime();
    ShardPartWriter.Written w =
        ShardPartWriter.write(f, batches.iterator(), null, FeatureEncoding.NONE, codec, Map.of());
    double write = secs(t);
    t = System.nanoTime();
    long back = 0;
    try (ShardFileReader r = new ShardFileReader(f)) {
      while (r.hasNext()) {
        back += BatchCodec.decode(r.next()).numEdges();
      }
    }
    double read = secs(t);
    if (back != edges) {
      throw new IllegalStateException("binary shard read back " + back + " of " + edges + " edges");
    }
    return encodingRow(w.bytes(), write, read, edges, rawBytes);
  }

  private static Map<String, Object> list(
      Path dir, List<MiniBatch> batches, CompressionCodecName codec, long edges, long rawBytes)
      throws IOException {
    Path f = dir.resolve("list-" + codec + ".parquet");
    Files.deleteIfExists(f);
    long t = System.nanoTime();
    try (ListShardWriter w = new ListShardWriter(f, codec)) {
      for (MiniBatch b : batches) {
        w.write(b);
      }
    }
    double write = secs(t);
    t = System.nanoTime();
    long back = 0;
    try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(f))) {
      MessageType schema = reader.getFooter().getFileMetaData().getSchema();
      MessageColumnIO io = new ColumnIOFactory().getColumnIO(schema);
      PageReadStore pages;
      while ((pages = reader.readNextRowGroup()) != null) {
        RecordReader<Group> rr = io.getRecordReader(pages, new GroupRecordConverter(schema));
        for (long i = 0; i < pages.getRowCount(); i++) {
          Group g = rr.read();
          // Decode every list into an int[] as a consumer would.
          for (String c : ListShardWriter.COLUMNS) {
            Group lst = g.getGroup(c, 0);
            int n = lst.getFieldRepetitionCount("list");
            int[] a = new int[n];
            for (int j = 0; j < n; j++) {
              a[j] = lst.getGroup("list", j).getInteger("element", 0);
            }
            if (c.equals("indices")) {
              back += a.length;
            }
          }
        }
      }
    }
    double read = secs(t);
    if (back != edges) {
      throw new IllegalStateException("list shard read back " + back + " of " + edges + " edges");
    }
    return encodingRow(Files.size(f), write, read, edges, rawBytes);
  }

  /** Per field, the faster of two measurements. */
  private static Map<String, Object> best(Map<String, Object> a, Map<String, Object> b) {
    if (a == null) {
      return b;
    }
    Map<String, Object> out = new LinkedHashMap<>(b);
    for (String k : new String[] {"write_seconds", "read_decode_seconds"}) {
      if ((double) a.get(k) < (double) b.get(k)) {
        String prefix = k.startsWith("write") ? "write_" : "read_";
        for (Map.Entry<String, Object> e : a.entrySet()) {
          if (e.getKey().startsWith(prefix)) {
            out.put(e.getKey(), e.getValue());
          }
        }
      }
    }
    return out;
  }

  private static Map<String, Object> encodingRow(
      long bytes, double write, double read, long edges, long rawBytes) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("file_bytes", bytes);
    r.put("bytes_per_sampled_edge", (double) bytes / edges);
    r.put("write_seconds", write);
    r.put("read_decode_seconds", read);
    r.put("write_mb_per_s_of_arrays", rawBytes / 1e6 / write);
    r.put("read_mb_per_s_of_arrays", rawBytes / 1e6 / read);
    r.put("write_edges_per_s", edges / write);
    r.put("read_edges_per_s", edges / read);
    return r;
  }

  /**
   * The ints of the random-read table of {@code mib} MiB: a power of two, so that a read's index is
   * a masked hash.
   *
   * @throws io.fanout.conf.FanoutConfigException unless {@code mib} is a power of two from 1 to
   *     2048
   */
  static int randomReadTableInts(int mib) {
    if (mib < 1 || mib > 2048 || Integer.bitCount(mib) != 1) {
      throw new io.fanout.conf.FanoutConfigException(
          "option 'random-read-mib': expected a power of two from 1 to 2048, got " + mib);
    }
    return mib << 18;
  }

  /**
   * The random reads each thread makes of a table of {@code tableInts}: 50 M from the default 1 GiB
   * table, in proportion from a smaller one, at least 1 M.
   */
  static long tableReadsPerThread(int tableInts) {
    return Math.max(1_000_000L, 50_000_000L * tableInts / (1 << 28));
  }

  /**
   * Independent random 4-byte reads from a plain int table: the machine's random-read limit that
   * the sampler's throughput is reported against.
   */
  static double tableRandomReads(int[] table, int threads, long readsPerThread) throws Exception {
    int mask = table.length - 1;
    long[] sinks = new long[threads];
    Thread[] ts = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      final int id = t;
      ts[t] =
          new Thread(
              () -> {
                long acc = 0;
                long key = SampleHash.mix(id + 7);
                for (long i = 0; i < readsPerThread; i++) {
                  acc += table[(int) SampleHash.draw(key, i) & mask];
                }
                sinks[id] = acc;
              });
    }
    long start = System.nanoTime();
    for (Thread t : ts) {
      t.start();
    }
    for (Thread t : ts) {
      t.join();
    }
    double s = secs(start);
    if (sinks[0] == 42) {
      System.err.print("");
    }
    return threads * readsPerThread / s;
  }

  /** Independent random 4-byte reads of the adjacency through the sampler's interface. */
  static double randomReads(CsrGraph g, int threads, long readsPerThread) throws Exception {
    long n = g.numEdges();
    if (n == 0) {
      return 0;
    }
    long[] sinks = new long[threads];
    Thread[] ts = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      final int id = t;
      ts[t] =
          new Thread(
              () -> {
                long acc = 0;
                long key = SampleHash.mix(id + 1);
                for (long i = 0; i < readsPerThread; i++) {
                  long h = SampleHash.draw(key, i);
                  long p = Math.multiplyHigh(h, n) + ((h >> 63) & n);
                  acc += g.neighbor(p);
                }
                sinks[id] = acc;
              });
    }
    // Warm-up pass on one thread, then the timed run.
    long warm = 0;
    for (long i = 0; i < Math.min(readsPerThread / 10, 2_000_000L); i++) {
      long h = SampleHash.draw(99, i);
      warm += g.neighbor(Math.multiplyHigh(h, n) + ((h >> 63) & n));
    }
    long start = System.nanoTime();
    for (Thread t : ts) {
      t.start();
    }
    for (Thread t : ts) {
      t.join();
    }
    double s = secs(start);
    if (warm == 42 && sinks[0] == 42) {
      System.err.print("");
    }
    return threads * readsPerThread / s;
  }

  private static long drain(BatchStream s) {
    long edges = 0;
    try (s) {
      while (s.hasNext()) {
        edges += s.next().numEdges();
      }
    }
    return edges;
  }

  private static long drainTyped(
      TypedNeighborSampler sampler, int epoch, int[] order, int batchSize, int end, int threads) {
    long edges = 0;
    try (OrderedBatchStream<TypedMiniBatch> s =
        new OrderedBatchStream<>(
            () -> sampler.newWorker()::sample, epoch, order, batchSize, 0, end, threads, 8)) {
      while (s.hasNext()) {
        edges += s.next().numEdges();
      }
    }
    return edges;
  }

  /** A full collection before a timed round, so that no round pays for an earlier one's garbage. */
  private static void collect() {
    System.gc();
  }

  private static double median(List<Double> values) {
    List<Double> v = new ArrayList<>(values);
    java.util.Collections.sort(v);
    int n = v.size();
    return n % 2 == 1 ? v.get(n / 2) : (v.get(n / 2 - 1) + v.get(n / 2)) / 2;
  }

  private static double secs(long start) {
    return (System.nanoTime() - start) / 1e9;
  }

  static long peakRssMib() {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) >> 10;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }
}
