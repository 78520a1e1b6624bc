package io.fanout.graph;

import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A typed (heterogeneous) graph store prepared by {@code prepare --graph-spec} or the typed {@code
 * prepare()} API, opened for reading: the {@link TypedGraph} the typed sampler and trainer read.
 *
 * <p>{@link #open} reads and validates {@code manifest.json} (format {@link
 * StoreManifest#TYPED_FORMAT}), optionally checks every listed file's size and CRC32C, then
 * memory-maps every part file after checking its header and length against the manifest, as {@link
 * GraphStore} does. Per type it maps {@code types/<type>/nodes/}, {@code features/} (with the
 * type's own dim and encoding) and {@code labelsets/} (multi-label types); per relation {@code
 * relations/<relation>/csr/}, one file per partition of the destination type, and of a weighted
 * relation its {@code weights/} files alongside. Everything is indexed by type-local ids ({@link
 * TypedSchema}); nothing of the graph is copied to the heap.
 *
 * <pre>{@code
 * try (TypedGraphStore g = TypedGraphStore.open(Path.of("/data/acm.store"), true)) {
 *   TypedSchema s = g.schema();
 *   CsrGraph cites = g.inNeighbors(s.relationIndex("paper_cite_paper"));
 *   FeatureTable x = g.features(s.typeIndex("paper"));   // null for a featureless type
 * }
 * }</pre>
 */
public final class TypedGraphStore implements TypedGraph {
  private final Path root;
  private final StoreManifest manifest;
  private final TypedSchema schema;
  private final Path data;
  private CsrGraph[] relations;
  private EdgeWeights[] weights;
  private VertexTable[] vertices;
  private FeatureTable[] features;
  private CsrGraph[] labelSets;
  private final FeatureParams[] featureParams;
  private final FeatureRowOrder[] featureRowOrders;

  private TypedGraphStore(Path root, StoreManifest m, int chunkShift) {
    if (!m.typed()) {
      throw oneTableStore(root);
    }
    this.root = root;
    this.manifest = m;
    this.schema = schemaOf(m);
    StoreFileMaps files = new StoreFileMaps(root, m, chunkShift);
    this.data = files.dataRoot();
    int types = m.types.size();
    vertices = new VertexTable[types];
    features = new FeatureTable[types];
    labelSets = new CsrGraph[types];
    featureParams = new FeatureParams[types];
    featureRowOrders = new FeatureRowOrder[types];
    for (int t = 0; t < types; t++) {
      StoreManifest.TypeEntry te = m.types.get(t);
      String dir = StoreLayout.typeDir(te.name) + "/";
      long[] starts = vertexStarts(te);
      ChunkedMapping[] nodes = new ChunkedMapping[te.partitions];
      for (int p = 0; p < te.partitions; p++) {
        nodes[p] = files.nodes(dir + StoreLayout.nodesFile(p), p, starts[p], count(starts, p));
      }
      vertices[t] = new MappedVertexTable(nodes, starts);
      if (te.featureDim > 0) {
        FeatureParams fp =
            files.featureParams(
                te.featureEncoding, te.featureDim, dir + StoreLayout.FEATURE_PARAMS);
        featureParams[t] = fp;
        ChunkedMapping[] feats = new ChunkedMapping[te.partitions];
        for (int p = 0; p < te.partitions; p++) {
          feats[p] =
              files.features(dir + StoreLayout.featuresFile(p), starts[p], count(starts, p), fp);
        }
        featureRowOrders[t] = rowOrder(files, te, dir);
        features[t] =
            new MappedFeatureTable(
                feats,
                starts,
                te.featureDim,
                RowDecoder.of(fp),
                fp.encoding == StoreLayout.ENCODING_F32,
                featureRowOrders[t]);
      }
      if (te.multiLabel) {
        ChunkedMapping[] sets = new ChunkedMapping[te.partitions];
        long[] entryStarts = new long[te.partitions + 1];
        for (int p = 0; p < te.partitions; p++) {
          sets[p] =
              files.csrOfAnyLength(
                  dir + StoreLayout.labelSetsFile(p), p, starts[p], count(starts, p));
          entryStarts[p + 1] =
              entryStarts[p] + sets[p].getLong(StoreLayout.HEADER_BYTES + 8 * count(starts, p));
        }
        labelSets[t] = new MappedCsrGraph(sets, starts, entryStarts);
      }
    }
    relations = new CsrGraph[m.relations.size()];
    weights = new EdgeWeights[m.relations.size()];
    for (int r = 0; r < relations.length; r++) {
      StoreManifest.RelationEntry re = m.relations.get(r);
      StoreManifest.TypeEntry dst = m.types.get(schema.relation(r).dstType());
      long[] starts = vertexStarts(dst);
      long[] edgeStarts = new long[dst.partitions + 1];
      ChunkedMapping[] parts = new ChunkedMapping[dst.partitions];
      ChunkedMapping[] weightParts = re.weighted ? new ChunkedMapping[dst.partitions] : null;
      String dir = StoreLayout.relationDir(re.name) + "/";
      for (int p = 0; p < dst.partitions; p++) {
        long n = count(starts, p);
        parts[p] = files.csr(dir + StoreLayout.csrFile(p), p, starts[p], n, re.partitionEdges[p]);
        if (weightParts != null) {
          weightParts[p] =
              files.weights(
                  dir + StoreLayout.weightsFile(p), p, starts[p], n, re.partitionEdges[p]);
        }
        edgeStarts[p + 1] = edgeStarts[p] + re.partitionEdges[p];
      }
      relations[r] = new MappedCsrGraph(parts, starts, edgeStarts);
      if (weightParts != null) {
        weights[r] = new MappedEdgeWeights(weightParts, edgeStarts);
      }
    }
  }

  /**
   * The row order of type {@code te}'s feature files: its {@code feature_layout}'s {@link
   * StoreLayout#FEATURE_ORDER} under {@code dir}, or {@link FeatureRowOrder#IDENTITY}.
   */
  private static FeatureRowOrder rowOrder(
      StoreFileMaps files, StoreManifest.TypeEntry te, String dir) {
    if (te.featureLayout == null) {
      return FeatureRowOrder.IDENTITY;
    }
    return FeatureRowOrder.mapped(
        files.map(dir + StoreLayout.FEATURE_ORDER, FeatureRowOrder.fileLength(te.vertices)),
        te.vertices);
  }

  /**
   * Opens the typed store at {@code store}; with {@code verify}, first checks every file it lists
   * against the manifest's size and CRC32C, once per process (as {@link
   * GraphStore#verifyChecksumsOnce}).
   *
   * @throws InvalidInputException when the store is incomplete, not a typed store (a one-table
   *     store is read by {@link GraphStore}), its manifest is invalid, or a part file is missing,
   *     damaged, truncated or has a bad header; the message names the file
   */
  public static TypedGraphStore open(Path store, boolean verify) {
    StoreManifest m = StoreManifest.read(store);
    if (!m.typed()) {
      throw oneTableStore(store);
    }
    if (verify) {
      StoreVerification.check(store, m, true);
    }
    return new TypedGraphStore(store, m, ChunkedMapping.DEFAULT_CHUNK_SHIFT);
  }

  private static InvalidInputException oneTableStore(Path store) {
    return new InvalidInputException(
        store
            + ": a one-table graph store (no vertex types); open it with GraphStore, or prepare"
            + " a typed store with --graph-spec");
  }

  /** Opens with chunks of {@code 2^chunkShift} bytes (tests use tiny chunks). */
  static TypedGraphStore open(Path store, int chunkShift) {
    StoreManifest m = StoreManifest.read(store);
    return new TypedGraphStore(store, m, chunkShift);
  }

  /** Whether the store at {@code store} is a typed one (reads its manifest only). */
  public static boolean isTyped(Path store) {
    return StoreManifest.read(store).typed();
  }

  /** The schema a typed manifest describes. */
  public static TypedSchema schemaOf(StoreManifest m) {
    List<TypedSchema.VertexType> types = new ArrayList<>();
    for (StoreManifest.TypeEntry t : m.types) {
      types.add(
          new TypedSchema.VertexType(
              t.name,
              t.firstVertex,
              t.vertices,
              t.featureDim,
              t.featureDim > 0 ? t.featureEncoding : "",
              t.classes,
              t.multiLabel));
    }
    List<TypedSchema.Relation> rels = new ArrayList<>();
    for (StoreManifest.RelationEntry r : m.relations) {
      rels.add(new TypedSchema.Relation(r.name, index(m, r.srcType), index(m, r.dstType), r.edges));
    }
    return new TypedSchema(types, rels);
  }

  private static int index(StoreManifest m, String type) {
    for (int t = 0; t < m.types.size(); t++) {
      if (m.types.get(t).name.equals(type)) {
        return t;
      }
    }
    throw new IllegalStateException("validated manifest names unknown type " + type);
  }

  /** Type-local first vertex of each of the type's partitions, with its count as last element. */
  private long[] vertexStarts(StoreManifest.TypeEntry t) {
    return vertexStarts(manifest, t);
  }

  private static long[] vertexStarts(StoreManifest m, StoreManifest.TypeEntry t) {
    long[] starts = new long[t.partitions + 1];
    for (int p = 0; p < t.partitions; p++) {
      starts[p + 1] = starts[p] + m.partitionTable.get(t.firstPartition + p).numVertices;
    }
    return starts;
  }

  @Override
  public long[] partitionStarts(int type) {
    return vertexStarts(manifest.types.get(type));
  }

  /**
   * Opens partition {@code part} of type {@code type} of the typed store at {@code store} on its
   * own, mapping only that partition's files: its {@code nodes/} and {@code labelsets/} files and,
   * of every relation into the type, its {@code csr/} (and, weighted, {@code weights/}) file (each
   * checked against its header and the manifest as {@link #open} does). For tasks that serve one
   * partition ({@code sample --mode partitioned}).
   *
   * @throws InvalidInputException when the store is not a typed store or a file is missing or bad
   */
  public static TypedStorePartition openPartition(Path store, int type, int part) {
    StoreManifest m = StoreManifest.read(store);
    if (!m.typed()) {
      throw oneTableStore(store);
    }
    TypedSchema schema = schemaOf(m);
    StoreManifest.TypeEntry te = m.types.get(type);
    if (part < 0 || part >= te.partitions) {
      throw new IllegalArgumentException(
          "partition " + part + " outside 0.." + (te.partitions - 1) + " of type " + te.name);
    }
    StoreFileMaps files = new StoreFileMaps(store, m, ChunkedMapping.DEFAULT_CHUNK_SHIFT);
    long[] starts = vertexStarts(m, te);
    long first = starts[part];
    long n = count(starts, part);
    long[] rows = {0, n};
    String dir = StoreLayout.typeDir(te.name) + "/";
    VertexTable vertices =
        new MappedVertexTable(
            new ChunkedMapping[] {files.nodes(dir + StoreLayout.nodesFile(part), part, first, n)},
            rows);
    CsrGraph[] relations = new CsrGraph[m.relations.size()];
    EdgeWeights[] weights = new EdgeWeights[m.relations.size()];
    for (int r = 0; r < relations.length; r++) {
      if (schema.relation(r).dstType() != type) {
        continue;
      }
      StoreManifest.RelationEntry re = m.relations.get(r);
      long edges = re.partitionEdges[part];
      String relDir = StoreLayout.relationDir(re.name) + "/";
      ChunkedMapping csr = files.csr(relDir + StoreLayout.csrFile(part), part, first, n, edges);
      long[] edgeStarts = {0, edges};
      relations[r] = new MappedCsrGraph(new ChunkedMapping[] {csr}, rows, edgeStarts);
      if (re.weighted) {
        ChunkedMapping w =
            files.weights(relDir + StoreLayout.weightsFile(part), part, first, n, edges);
        weights[r] = new MappedEdgeWeights(new ChunkedMapping[] {w}, edgeStarts);
      }
    }
    java.util.function.IntFunction<int[]> labelSets = null;
    if (te.multiLabel) {
      ChunkedMapping sets =
          files.csrOfAnyLength(dir + StoreLayout.labelSetsFile(part), part, first, n);
      long entries = sets.getLong(StoreLayout.HEADER_BYTES + 8 * n);
      CsrGraph csr = new MappedCsrGraph(new ChunkedMapping[] {sets}, rows, new long[] {0, entries});
      labelSets = v -> row(csr, (int) (v - first));
    }
    return new TypedStorePartition(
        type, first, first + n, (int) first, vertices, relations, weights, labelSets);
  }

  private static int[] row(CsrGraph sets, int v) {
    long from = sets.rowStart(v);
    int[] out = new int[(int) (sets.rowEnd(v) - from)];
    for (int i = 0; i < out.length; i++) {
      out[i] = sets.neighbor(from + i);
    }
    return out;
  }

  private static long count(long[] starts, int p) {
    return starts[p + 1] - starts[p];
  }

  public Path root() {
    return root;
  }

  @Override
  public java.util.List<String> linkRelations() {
    StoreManifest.EdgeSplit e = manifest.edgeSplit;
    if (e == null || e.relation == null) {
      return java.util.List.of();
    }
    return e.removedFrom == null ? java.util.List.of(e.relation) : List.copyOf(e.removedFrom);
  }

  @Override
  public HeldOutEdges heldOutEdges(String split) {
    return linkRelations().isEmpty() ? null : HeldOutEdges.read(this, split);
  }

  @Override
  public HeldOutCount heldOutCount(String split) {
    return linkRelations().isEmpty() ? null : HeldOutEdges.count(this, split);
  }

  public StoreManifest manifest() {
    return manifest;
  }

  @Override
  public boolean symmetric(int relation) {
    TypedSchema.Relation r = schema.relation(relation);
    return r.srcType() == r.dstType()
        && manifest.options != null
        && "true".equals(manifest.options.get("undirected"));
  }

  /** The version folder this store was opened at (see {@link GraphStore#dataRoot()}). */
  public Path dataRoot() {
    return data;
  }

  @Override
  public TypedSchema schema() {
    return schema;
  }

  @Override
  public CsrGraph inNeighbors(int relation) {
    return live(relations)[relation];
  }

  @Override
  public EdgeWeights weights(int relation) {
    return live(weights)[relation];
  }

  @Override
  public VertexTable vertices(int type) {
    return live(vertices)[type];
  }

  @Override
  public FeatureTable features(int type) {
    return live(features)[type];
  }

  /**
   * How type {@code type}'s feature rows are stored (encoding, and the quantization parameters of
   * {@code int8}, {@code int4} and {@code pq}); null for a type without features.
   */
  public FeatureParams featureParams(int type) {
    return featureParams[type];
  }

  @Override
  public String featureParamsCrc32c(int type) {
    StoreManifest.FileEntry f =
        manifest.file(
            StoreLayout.typeDir(manifest.types.get(type).name) + "/" + StoreLayout.FEATURE_PARAMS);
    return f == null ? null : f.crc32c;
  }

  /**
   * Where each type-local id of type {@code type} has its feature row in the type's feature files
   * (its {@code feature_layout}); {@link FeatureRowOrder#IDENTITY} for a type whose rows lie at
   * their ids, null for a type without features. Every reader of the type's rows maps ids through
   * it ({@link #features} does), so a layout never changes a result.
   */
  public FeatureRowOrder featureRowOrder(int type) {
    return featureRowOrders[type];
  }

  @Override
  public int[] labelSet(int type, int v) {
    CsrGraph sets = live(labelSets)[type];
    if (sets == null) {
      return TypedGraph.super.labelSet(type, v);
    }
    return row(sets, v);
  }

  /**
   * The folder of type {@code type}'s id map: Parquet files {@code (dense_id int32, id <original
   * type>)}, {@code dense_id} type-local, one file per non-empty partition in id order (read with
   * Spark to write results under the original ids). The original id type is the manifest's {@code
   * types[t].id_type}.
   */
  public Path idMap(int type) {
    return data.resolve(StoreLayout.typeDir(schema.type(type).name()))
        .resolve(StoreLayout.IDMAP_DIR);
  }

  /**
   * Reads every file the manifest lists and compares its size and CRC32C with the manifest.
   *
   * @return the number of files checked
   */
  public int verifyChecksums() {
    return StoreVerification.check(root, manifest, false);
  }

  @Override
  public void close() {
    relations = null;
    weights = null;
    vertices = null;
    features = null;
    labelSets = null;
  }

  private static <T> T live(T view) {
    if (view == null) {
      throw new IllegalStateException("typed graph store is closed");
    }
    return view;
  }
}
