package io.fanout.store;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code manifest.json} of a graph store (fields documented in {@code docs/formats.md}). A plain
 * data holder: writers fill the fields, {@link #write} serializes them, {@link #read} parses and
 * {@link #validate}s them. Unknown fields are ignored on read so later versions can add some.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({
  "format",
  "version",
  "data_dir",
  "vertices",
  "edges",
  "partitions",
  "feature_dim",
  "feature_encoding",
  "feature_layout",
  "weighted",
  "edge_split",
  "classes",
  "split_counts",
  "degree",
  "id_type",
  "dropped_dangling_edges",
  "options",
  "input_fingerprint",
  "partition_table",
  "types",
  "relations",
  "files"
})
public final class StoreManifest {
  public static final String FORMAT = "fanout-graph-store";

  /**
   * The format of a typed (heterogeneous) store: the same manifest with {@link #types} and {@link
   * #relations}, read by {@code io.fanout.graph.TypedGraphStore}. A distinct name, so that a reader
   * of one-table stores refuses it by its format rather than by a missing file.
   */
  public static final String TYPED_FORMAT = "fanout-typed-graph-store";

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  @JsonProperty("format")
  public String format = FORMAT;

  @JsonProperty("version")
  public int version = StoreLayout.FORMAT_VERSION;

  /**
   * The version folder holding the files ({@code v-NNNN}; see {@link OutputCommit}), or "" for a
   * store of an earlier release whose files lie next to the manifest.
   */
  @JsonProperty("data_dir")
  public String dataDir = "";

  @JsonProperty("vertices")
  public long vertices;

  @JsonProperty("edges")
  public long edges;

  @JsonProperty("partitions")
  public int partitions;

  @JsonProperty("feature_dim")
  public int featureDim;

  @JsonProperty("feature_encoding")
  public String featureEncoding = "f32";

  /**
   * The order of the feature rows inside each partition's file ({@link FeatureLayoutKind}), given
   * by {@link StoreLayout#FEATURE_ORDER}; null (not written) when rows lie at their ids, so a store
   * without a layout keeps the manifest and fingerprint it had before layouts existed.
   */
  @JsonProperty("feature_layout")
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public String featureLayout;

  /**
   * Whether the store has {@code weights/} files: a float32 weight per CSR entry ({@code prepare
   * --weight-column}). Not written when false, so a store without weights has the manifest, and so
   * the fingerprint, it had before weights existed.
   */
  @JsonProperty("weighted")
  @JsonInclude(JsonInclude.Include.NON_DEFAULT)
  public boolean weighted;

  /**
   * The held-out edges of a link-prediction store ({@code prepare --edge-split}), or null. Not
   * written when null, so stores without an edge split keep their manifest and fingerprint.
   */
  @JsonProperty("edge_split")
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public EdgeSplit edgeSplit;

  @JsonProperty("classes")
  public int classes;

  /** Vertices per split name: train, val, test, none. */
  @JsonProperty("split_counts")
  public Map<String, Long> splitCounts = new LinkedHashMap<>();

  @JsonProperty("degree")
  public Degree degree = new Degree();

  /** Type of the original ids: long, int or string. */
  @JsonProperty("id_type")
  public String idType;

  @JsonProperty("dropped_dangling_edges")
  public long droppedDanglingEdges;

  /** The resolved options the store was prepared with. */
  @JsonProperty("options")
  public Map<String, String> options = new LinkedHashMap<>();

  @JsonProperty("input_fingerprint")
  public String inputFingerprint;

  @JsonProperty("partition_table")
  public List<Partition> partitionTable = new ArrayList<>();

  /**
   * The vertex types of a typed store, in dense-id order (each a contiguous range of ids and of
   * partitions); null (not written) for a one-table store.
   */
  @JsonProperty("types")
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public List<TypeEntry> types;

  /** The relations of a typed store, in store order; null (not written) for a one-table store. */
  @JsonProperty("relations")
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public List<RelationEntry> relations;

  @JsonProperty("files")
  public List<FileEntry> files = new ArrayList<>();

  /** Whether this is a typed store ({@link #TYPED_FORMAT}). */
  public boolean typed() {
    return TYPED_FORMAT.equals(format);
  }

  /**
   * One vertex type of a typed store: global dense ids {@code [first_vertex, first_vertex +
   * vertices)}, global partitions {@code [first_partition, first_partition + partitions)}; its
   * files live under {@code types/<name>/} and use type-local ids.
   */
  @JsonPropertyOrder({
    "name",
    "first_vertex",
    "vertices",
    "first_partition",
    "partitions",
    "feature_dim",
    "feature_encoding",
    "classes",
    "multi_label",
    "split_counts",
    "id_type",
    "feature_layout"
  })
  public static final class TypeEntry {
    @JsonProperty("name")
    public String name;

    @JsonProperty("first_vertex")
    public long firstVertex;

    @JsonProperty("vertices")
    public long vertices;

    @JsonProperty("first_partition")
    public int firstPartition;

    @JsonProperty("partitions")
    public int partitions;

    /** 0 for a type without features. */
    @JsonProperty("feature_dim")
    public int featureDim;

    /** The encoding of its feature rows; "" when it has none. */
    @JsonProperty("feature_encoding")
    public String featureEncoding = "";

    /** {@code max(label) + 1} over its vertices (for a multi-label type, over its label sets). */
    @JsonProperty("classes")
    public int classes;

    /** Whether its labels are sets ({@code types/<name>/labelsets/} files). */
    @JsonProperty("multi_label")
    public boolean multiLabel;

    @JsonProperty("split_counts")
    public Map<String, Long> splitCounts = new LinkedHashMap<>();

    /** Type of its original ids: long, int or string. */
    @JsonProperty("id_type")
    public String idType;

    /**
     * The order of its feature rows inside each of its partitions' files ({@link
     * FeatureLayoutKind}), given by its {@code types/<name>/}{@link StoreLayout#FEATURE_ORDER}
     * (type-local ids and positions); null (not written) when its rows lie at their ids, so a store
     * without a layout keeps the manifest it had before typed layouts existed.
     */
    @JsonProperty("feature_layout")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public String featureLayout;
  }

  /**
   * One relation of a typed store: edges from {@code src_type} into {@code dst_type} vertices, its
   * in-neighbor CSR under {@code relations/<name>/csr/}, one file per partition of {@code dst_type}
   * ({@code partition_edges} entries each).
   */
  @JsonPropertyOrder({
    "name",
    "src_type",
    "dst_type",
    "edges",
    "reverse_of",
    "added_reverse",
    "degree",
    "dropped_dangling_edges",
    "partition_edges",
    "weighted"
  })
  public static final class RelationEntry {
    @JsonProperty("name")
    public String name;

    @JsonProperty("src_type")
    public String srcType;

    @JsonProperty("dst_type")
    public String dstType;

    @JsonProperty("edges")
    public long edges;

    /** The relation this one is the flip of (declared, or added by --add-reverse), else null. */
    @JsonProperty("reverse_of")
    public String reverseOf;

    /** Whether {@code --add-reverse} added it. */
    @JsonProperty("added_reverse")
    public boolean addedReverse;

    /** In-degree statistics over the destination type's vertices. */
    @JsonProperty("degree")
    public Degree degree = new Degree();

    @JsonProperty("dropped_dangling_edges")
    public long droppedDanglingEdges;

    /** CSR entries per partition of the destination type, in partition order. */
    @JsonProperty("partition_edges")
    public long[] partitionEdges = new long[0];

    /**
     * Whether the relation has {@code weights/} files, a float32 weight per entry of its CSR
     * ({@code prepare --weight-column} or the spec's {@code weight_column}). Not written when
     * false, so unweighted relations keep the manifest they had before typed weights existed.
     */
    @JsonProperty("weighted")
    @JsonInclude(JsonInclude.Include.NON_DEFAULT)
    public boolean weighted;
  }

  /** In-degree statistics over all vertices. */
  @JsonPropertyOrder({"min", "max", "mean"})
  public static final class Degree {
    @JsonProperty("min")
    public long min;

    @JsonProperty("max")
    public long max;

    @JsonProperty("mean")
    public double mean;

    public Degree() {}

    public Degree(long min, long max, double mean) {
      this.min = min;
      this.max = max;
      this.mean = mean;
    }
  }

  /**
   * How the edges were split for link prediction: the fractions and seed asked for, the undirected
   * pairs (or directed edges) that went to each split, and the seeded negative pairs stored next to
   * the val and test positives in {@link StoreLayout#edgeSplitFile}.
   */
  @JsonPropertyOrder({
    "fractions",
    "seed",
    "negatives_per_positive",
    "train_pairs",
    "val_pairs",
    "test_pairs",
    "val_negatives",
    "test_negatives",
    "relation",
    "removed_from"
  })
  public static final class EdgeSplit {
    /**
     * train, val, test fractions, e.g. {@code [0.85, 0.05, 0.1]}; null when the split came from
     * {@link #column}.
     */
    @JsonProperty("fractions")
    public double[] fractions;

    /** The edge table's split column ({@code prepare --edge-split-column}), else absent. */
    @JsonProperty("column")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public String column;

    @JsonProperty("seed")
    public long seed;

    @JsonProperty("negatives_per_positive")
    public int negativesPerPositive;

    /**
     * Training pairs other than self-loops, the seeds of {@code sample --task link}: kept in the
     * CSR (both directions for undirected stores).
     */
    @JsonProperty("train_pairs")
    public long trainPairs;

    @JsonProperty("val_pairs")
    public long valPairs;

    @JsonProperty("test_pairs")
    public long testPairs;

    @JsonProperty("val_negatives")
    public long valNegatives;

    @JsonProperty("test_negatives")
    public long testNegatives;

    /**
     * The split relation of a typed store ({@code prepare --link-relation}), whose held-out edges
     * are under {@link StoreLayout#relationEdgeSplitFile}; absent in one-table stores.
     */
    @JsonProperty("relation")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public String relation;

    /**
     * Typed stores: the relations whose CSR lost the held-out edges, the split relation then its
     * reverses; absent in one-table stores.
     */
    @JsonProperty("removed_from")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public List<String> removedFrom;
  }

  /** One partition: the dense-id range it owns and the edges (CSR entries) of those rows. */
  @JsonPropertyOrder({"index", "first_vertex", "num_vertices", "num_edges"})
  public static final class Partition {
    @JsonProperty("index")
    public int index;

    @JsonProperty("first_vertex")
    public long firstVertex;

    @JsonProperty("num_vertices")
    public long numVertices;

    @JsonProperty("num_edges")
    public long numEdges;

    public Partition() {}

    public Partition(int index, long firstVertex, long numVertices, long numEdges) {
      this.index = index;
      this.firstVertex = firstVertex;
      this.numVertices = numVertices;
      this.numEdges = numEdges;
    }
  }

  /** One published file, relative to the store root, with its size and CRC32C. */
  @JsonPropertyOrder({"path", "bytes", "crc32c"})
  public static final class FileEntry {
    @JsonProperty("path")
    public String path;

    @JsonProperty("bytes")
    public long bytes;

    @JsonProperty("crc32c")
    public String crc32c;

    public FileEntry() {}

    public FileEntry(String path, long bytes, String crc32c) {
      this.path = path;
      this.bytes = bytes;
      this.crc32c = crc32c;
    }
  }

  /**
   * The folder the listed files are relative to: {@code store}'s version folder {@link #dataDir}.
   *
   * @throws InvalidInputException when {@code data_dir} is not a version folder inside the store
   */
  public Path dataRoot(Path store) {
    return ManifestPaths.dataRoot(
        store, store.resolve(StoreLayout.MANIFEST).toString(), "store", dataDir);
  }

  /** A store of an earlier release (no {@code data_dir}): SHA-256 of its manifest's bytes. */
  @com.fasterxml.jackson.annotation.JsonIgnore private String legacyFingerprint;

  /**
   * The store's identity: SHA-256 of the manifest without {@code data_dir} (for a store of an
   * earlier release, of its manifest's bytes, the identity that release gave it), so a store
   * replaced by an identical one keeps it. It covers every file's size and CRC32C. Shards record it
   * and trainers compare it to reject shards sampled from another store.
   */
  public String fingerprint() {
    if (legacyFingerprint != null) {
      return legacyFingerprint;
    }
    return OutputCommit.fingerprint(JSON, this);
  }

  /** Bytes of every file {@link #files} lists: the store's size on disk, the manifest aside. */
  public long fileBytes() {
    long sum = 0;
    for (FileEntry f : files) {
      sum += f.bytes;
    }
    return sum;
  }

  /** The entry of {@code path}, or null. */
  public FileEntry file(String path) {
    for (FileEntry f : files) {
      if (f.path.equals(path)) {
        return f;
      }
    }
    return null;
  }

  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  public static StoreManifest fromJson(String source, String json) {
    StoreManifest m;
    try {
      m = JSON.readValue(json, StoreManifest.class);
    } catch (JsonProcessingException e) {
      throw new InvalidInputException(
          source + ": not a valid manifest: " + e.getOriginalMessage(), e);
    }
    m.validate(source);
    if (m.dataDir.isEmpty()) {
      m.legacyFingerprint = Checksums.sha256(json);
    }
    return m;
  }

  /** Writes the manifest as JSON to {@code file} (not atomically; see {@link OutputCommit}). */
  public void write(Path file) {
    try {
      Files.writeString(file, toJson() + "\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /**
   * Reads and validates {@code STORE/manifest.json}.
   *
   * @throws InvalidInputException when the store has no manifest ("incomplete store") or it is
   *     invalid
   */
  public static StoreManifest read(Path store) {
    Path file = store.resolve(StoreLayout.MANIFEST);
    String json;
    try {
      json = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      if (!Files.isDirectory(store)) {
        throw new InvalidInputException(store + ": no such graph store directory");
      }
      if (!OutputCommit.holdsRunFiles(store)
          && !Files.isDirectory(store.resolve(StoreLayout.CSR_DIR))) {
        throw new InvalidInputException(
            store
                + ": not a graph store (no "
                + StoreLayout.MANIFEST
                + ", and nothing a prepare run writes); expected the --output folder of prepare");
      }
      throw new InvalidInputException(
          store
              + ": incomplete store: "
              + StoreLayout.MANIFEST
              + " is missing (a prepare run did not finish); rerun prepare");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    return fromJson(file.toString(), json);
  }

  /** Checks that the fields are consistent; throws naming {@code source} otherwise. */
  public void validate(String source) {
    if (!FORMAT.equals(format) && !TYPED_FORMAT.equals(format)) {
      throw new InvalidInputException(
          source + ": format '" + format + "', expected '" + FORMAT + "'");
    }
    if (version != StoreLayout.FORMAT_VERSION) {
      throw new InvalidInputException(
          source
              + ": format version "
              + version
              + ", this reader supports version "
              + StoreLayout.FORMAT_VERSION);
    }
    if (vertices < 0 || vertices > Integer.MAX_VALUE || edges < 0 || featureDim < 0) {
      throw new InvalidInputException(
          source
              + ": bad counts: vertices "
              + vertices
              + " (0 .. 2^31-1), edges "
              + edges
              + ", feature_dim "
              + featureDim);
    }
    if (featureLayout != null) {
      FeatureLayoutKind kind;
      try {
        kind = FeatureLayoutKind.parse(featureLayout);
      } catch (IllegalArgumentException e) {
        throw new InvalidInputException(
            source
                + ": unknown feature_layout '"
                + featureLayout
                + "', "
                + e.getMessage()
                + " (written by a newer Fanout?)");
      }
      if (kind == FeatureLayoutKind.IDENTITY || featureDim == 0) {
        throw new InvalidInputException(
            source
                + ": feature_layout '"
                + featureLayout
                + "' needs a store with features and is written only for a layout other than"
                + " identity");
      }
    }
    if (partitionTable == null || partitionTable.size() != partitions) {
      throw new InvalidInputException(
          source
              + ": partitions is "
              + partitions
              + " but partition_table has "
              + (partitionTable == null ? 0 : partitionTable.size())
              + " entries");
    }
    long nextVertex = 0;
    long edgeSum = 0;
    for (int i = 0; i < partitionTable.size(); i++) {
      Partition p = partitionTable.get(i);
      if (p.index != i || p.firstVertex != nextVertex || p.numVertices < 0 || p.numEdges < 0) {
        throw new InvalidInputException(
            source
                + ": partition_table entry "
                + i
                + " (index "
                + p.index
                + ", first_vertex "
                + p.firstVertex
                + ") is not contiguous; expected index "
                + i
                + ", first_vertex "
                + nextVertex);
      }
      nextVertex += p.numVertices;
      edgeSum += p.numEdges;
    }
    if (nextVertex != vertices || edgeSum != edges) {
      throw new InvalidInputException(
          source
              + ": partition_table covers "
              + nextVertex
              + " vertices and "
              + edgeSum
              + " edges, manifest says "
              + vertices
              + " and "
              + edges);
    }
    if (files == null) {
      files = new ArrayList<>();
    }
    if (dataDir == null) {
      dataDir = "";
    }
    ManifestPaths.checkDataDir(source, "store", dataDir);
    for (FileEntry f : files) {
      ManifestPaths.check(source, "store", f.path);
    }
    if (typed()) {
      TypedManifestCheck.check(source, this);
    } else if (types != null || relations != null) {
      throw new InvalidInputException(
          source
              + ": has types or relations but format '"
              + format
              + "'; expected '"
              + TYPED_FORMAT
              + "' for a typed store");
    }
  }
}
