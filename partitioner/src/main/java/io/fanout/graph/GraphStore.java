package io.fanout.graph;

import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import java.nio.file.Path;

/**
 * A graph store prepared by {@code prepare}, opened for reading: the one entry point for readers.
 *
 * <p>{@link #open} reads and validates {@code manifest.json} (a store without one is incomplete and
 * refused), then memory-maps every part file after checking its header (magic, version, partition,
 * counts) and its length against the header and the manifest. Nothing of the graph is copied to the
 * heap: the views below read the mapped files, in chunks of up to 1 GiB addressed by {@code long}
 * positions, so stores with more than 2^31 edges are read as any other.
 *
 * <pre>{@code
 * try (GraphStore g = GraphStore.open(Path.of("/data/cora.store"))) {
 *   CsrGraph csr = g.csr();          // in-neighbors by dense id
 *   FeatureTable x = g.features();   // f32 rows by dense id
 *   VertexTable y = g.vertices();    // labels and splits
 *   EdgeWeights w = g.weights();     // by csr position; weighted stores only
 * }
 * }</pre>
 *
 * <p>The views are thread-safe and valid until {@link #close}. Closing drops the mappings; the JVM
 * unmaps them when they are collected.
 */
public final class GraphStore implements AutoCloseable {
  private final Path root;
  private final Path data;
  private final StoreManifest manifest;
  private final FeatureParams featureParams;
  private final StoreFileMaps files;
  private final FeatureRowOrder featureRowOrder;
  private CsrGraph csr;
  private FeatureTable features;
  private VertexTable vertices;
  private EdgeWeights weights;

  private GraphStore(Path root, StoreManifest manifest, int chunkShift) {
    if (manifest.typed()) {
      throw typedStore(root, manifest);
    }
    this.root = root;
    this.manifest = manifest;
    this.files = new StoreFileMaps(root, manifest, chunkShift);
    this.data = files.dataRoot();
    int parts = manifest.partitions;
    long[] vertexStarts = new long[parts + 1];
    long[] edgeStarts = new long[parts + 1];
    for (int p = 0; p < parts; p++) {
      StoreManifest.Partition e = manifest.partitionTable.get(p);
      vertexStarts[p + 1] = vertexStarts[p] + e.numVertices;
      edgeStarts[p + 1] = edgeStarts[p] + e.numEdges;
    }
    ChunkedMapping[] csrParts = new ChunkedMapping[parts];
    ChunkedMapping[] nodeParts = new ChunkedMapping[parts];
    ChunkedMapping[] featParts = manifest.featureDim > 0 ? new ChunkedMapping[parts] : null;
    ChunkedMapping[] weightParts = manifest.weighted ? new ChunkedMapping[parts] : null;
    this.featureParams = featParts != null ? readFeatureParams() : null;
    this.featureRowOrder =
        manifest.featureLayout == null
            ? FeatureRowOrder.IDENTITY
            : FeatureRowOrder.mapped(
                files.map(StoreLayout.FEATURE_ORDER, FeatureRowOrder.fileLength(manifest.vertices)),
                manifest.vertices);
    for (int p = 0; p < parts; p++) {
      StoreManifest.Partition e = manifest.partitionTable.get(p);
      csrParts[p] = openCsr(e);
      nodeParts[p] = openNodes(e);
      if (featParts != null) {
        featParts[p] = openFeatures(e, featureParams);
      }
      if (weightParts != null) {
        weightParts[p] = openWeights(e);
      }
    }
    this.weights = weightParts != null ? new MappedEdgeWeights(weightParts, edgeStarts) : null;
    this.csr = new MappedCsrGraph(csrParts, vertexStarts, edgeStarts);
    this.vertices = new MappedVertexTable(nodeParts, vertexStarts);
    this.features =
        new MappedFeatureTable(
            featParts,
            vertexStarts,
            manifest.featureDim,
            featureParams != null ? RowDecoder.of(featureParams) : null,
            featureParams != null && featureParams.encoding == StoreLayout.ENCODING_F32,
            featureRowOrder);
  }

  /**
   * Opens the store at {@code store}.
   *
   * @throws InvalidInputException when the store is incomplete (no manifest), its manifest is
   *     invalid, or a part file is missing, truncated or has a bad header; the message names the
   *     file
   */
  public static GraphStore open(Path store) {
    return open(store, ChunkedMapping.DEFAULT_CHUNK_SHIFT);
  }

  /**
   * Opens the store at {@code store}; with {@code verify}, first checks every file it lists against
   * the manifest's size and CRC32C, once per process ({@link #verifyChecksumsOnce}), so that a
   * damaged file is reported with its checksums and the way to recover, never read.
   *
   * @throws InvalidInputException as {@link #open(Path)}, or naming a damaged file
   */
  public static GraphStore open(Path store, boolean verify) {
    StoreManifest m = StoreManifest.read(store);
    if (m.typed()) {
      throw typedStore(store, m);
    }
    if (verify) {
      StoreVerification.check(store, m, true);
    }
    return new GraphStore(store, m, ChunkedMapping.DEFAULT_CHUNK_SHIFT);
  }

  /** Opens with chunks of {@code 2^chunkShift} bytes (tests use tiny chunks). */
  static GraphStore open(Path store, int chunkShift) {
    return new GraphStore(store, StoreManifest.read(store), chunkShift);
  }

  public Path root() {
    return root;
  }

  public StoreManifest manifest() {
    return manifest;
  }

  /**
   * The folder of this store's files: the version the manifest named when the store was opened.
   * Everything read after {@link #open} must come from here, never from a fresh look at the
   * manifest, so a store replaced meanwhile is never read as a mix of two versions.
   */
  public Path dataRoot() {
    return data;
  }

  /** In-neighbor adjacency by dense id. */
  public CsrGraph csr() {
    return live(csr);
  }

  /** Feature rows by dense id ({@code dim() == 0} when the store has no features). */
  public FeatureTable features() {
    return live(features);
  }

  /**
   * How the feature rows are stored (encoding, and the quantization parameters of {@code int8},
   * {@code int4} and {@code pq}); null when the store has no features.
   */
  public FeatureParams featureParams() {
    return featureParams;
  }

  /**
   * Where each id's feature row lies in the feature files ({@code feature_layout}, {@link
   * StoreLayout#FEATURE_ORDER}); {@link FeatureRowOrder#IDENTITY} for a store without a layout.
   * {@link #features()} maps ids through it; a reader of the files themselves must too.
   */
  public FeatureRowOrder featureRowOrder() {
    return featureRowOrder;
  }

  /** Labels and splits by dense id. */
  public VertexTable vertices() {
    return live(vertices);
  }

  /** Whether the store has edge weights ({@code prepare --weight-column}). */
  public boolean weighted() {
    return manifest.weighted;
  }

  /**
   * The weight of every CSR entry, by the positions of {@link #csr()}.
   *
   * @throws InvalidInputException when the store has no weights, saying how to prepare one
   */
  public EdgeWeights weights() {
    if (!manifest.weighted) {
      throw notWeighted(root);
    }
    return live(weights);
  }

  /** The one-line refusal of a typed store by this one-table reader. */
  static InvalidInputException typedStore(Path store, StoreManifest m) {
    return new InvalidInputException(
        store
            + ": a typed graph store ("
            + m.types.size()
            + " vertex types, "
            + m.relations.size()
            + " relations); this step reads one-table stores only, typed stores are read by the"
            + " typed sampler and trainer (io.fanout.graph.TypedGraphStore)");
  }

  /** The error for a weighted read of a store prepared without {@code --weight-column}. */
  public static InvalidInputException notWeighted(Path store) {
    return new InvalidInputException(
        store
            + ": the store has no edge weights (\"weighted\": false in "
            + StoreLayout.MANIFEST
            + "); prepare it with --weight-column COLUMN, or sample without --weighted");
  }

  /**
   * Reads every file the manifest lists and compares its size and CRC32C with the manifest. Files
   * are read in parallel, on up to one thread per core.
   *
   * @return the number of files checked
   * @throws InvalidInputException naming the first file (in manifest order) that is missing or
   *     differs, with the expected and the actual value and how to recover
   */
  public int verifyChecksums() {
    return StoreVerification.check(root, manifest, false);
  }

  /**
   * {@link #verifyChecksums}, once per process: a file found intact before in this JVM is not read
   * again while the store's canonical path, the manifest (its SHA-256) and the file's canonical
   * path, size, modification time and file key (inode) are the same. A file that changed in any of
   * these is read again. Notebooks and executors that open the same store many times pay for one
   * read; a file rewritten in place keeping its size and modification time would go unnoticed
   * (Fanout never writes a published file in place).
   *
   * @return the number of files read (0 when all were known intact)
   * @throws InvalidInputException as {@link #verifyChecksums}
   */
  public int verifyChecksumsOnce() {
    return StoreVerification.check(root, manifest, true);
  }

  @Override
  public void close() {
    csr = null;
    features = null;
    vertices = null;
    weights = null;
  }

  private static <T> T live(T view) {
    if (view == null) {
      throw new IllegalStateException("graph store is closed");
    }
    return view;
  }

  private ChunkedMapping openCsr(StoreManifest.Partition e) {
    return files.csr(
        StoreLayout.csrFile(e.index), e.index, e.firstVertex, e.numVertices, e.numEdges);
  }

  private ChunkedMapping openNodes(StoreManifest.Partition e) {
    return files.nodes(StoreLayout.nodesFile(e.index), e.index, e.firstVertex, e.numVertices);
  }

  private ChunkedMapping openFeatures(StoreManifest.Partition e, FeatureParams params) {
    return files.features(StoreLayout.featuresFile(e.index), e.firstVertex, e.numVertices, params);
  }

  private ChunkedMapping openWeights(StoreManifest.Partition e) {
    return files.weights(
        StoreLayout.weightsFile(e.index), e.index, e.firstVertex, e.numVertices, e.numEdges);
  }

  /**
   * The encoding the manifest names and, for a quantized store, its parameters file, checked
   * against the manifest's CRC32C on every open (it is small and every row depends on it).
   */
  private FeatureParams readFeatureParams() {
    return files.featureParams(
        manifest.featureEncoding, manifest.featureDim, StoreLayout.FEATURE_PARAMS);
  }
}
