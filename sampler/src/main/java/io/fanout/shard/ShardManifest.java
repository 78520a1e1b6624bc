package io.fanout.shard;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fanout.store.InvalidInputException;
import io.fanout.store.ManifestPaths;
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
 * {@code SHARDS/manifest.json}, written last by {@code sample}: what was sampled from which store
 * with which options, and every part file with its batch range, size and CRC32C. A trainer reads it
 * first, rejects shards whose {@link #storeFingerprint} differs from its store's, and reads the
 * parts it lists. Fields are documented in {@code docs/formats.md}.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({
  "format",
  "version",
  "data_dir",
  "request_fingerprint",
  "store",
  "store_fingerprint",
  "store_vertices",
  "store_edges",
  "split",
  "seeds_per_epoch",
  "batch_size",
  "fanouts",
  "epochs",
  "seed",
  "features",
  "feature_dim",
  "feature_params_crc32c",
  "compression",
  "batches_per_shard",
  "batches_per_epoch",
  "parts_per_epoch",
  "mode",
  "options",
  "typed",
  "totals",
  "files"
})
public final class ShardManifest {
  public static final String FORMAT = "fanout-minibatch-shards";
  public static final String FILE = "manifest.json";

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  @JsonProperty("format")
  public String format = FORMAT;

  @JsonProperty("version")
  public int version = ShardSchema.VERSION;

  /**
   * The version folder holding the parts ({@code v-NNNN}; see {@link
   * io.fanout.store.OutputCommit}), or "" for shards of an earlier release whose parts lie next to
   * the manifest.
   */
  @JsonProperty("data_dir")
  public String dataDir = "";

  /** SHA-256 of everything that determines the shard bytes (store fingerprint and options). */
  @JsonProperty("request_fingerprint")
  public String requestFingerprint;

  /** The graph store path as given. */
  @JsonProperty("store")
  public String store;

  /** SHA-256 of the store's {@code manifest.json} (which lists its files' CRC32C). */
  @JsonProperty("store_fingerprint")
  public String storeFingerprint;

  @JsonProperty("store_vertices")
  public long storeVertices;

  @JsonProperty("store_edges")
  public long storeEdges;

  @JsonProperty("split")
  public String split;

  @JsonProperty("seeds_per_epoch")
  public long seedsPerEpoch;

  @JsonProperty("batch_size")
  public int batchSize;

  /** Per hop, hop 1 (from the seeds) first; -1 = all neighbors. */
  @JsonProperty("fanouts")
  public int[] fanouts;

  @JsonProperty("epochs")
  public int epochs;

  @JsonProperty("seed")
  public long seed;

  /** none, f32, f16, or the store's own encoding (int8, int4, pq: its rows copied undecoded). */
  @JsonProperty("features")
  public String features;

  @JsonProperty("feature_dim")
  public int featureDim;

  /**
   * With {@code features} int8, int4 or pq: the CRC32C of the store's {@code features/params.qnt}
   * (scales and offsets, or codebooks) the inline rows were encoded with, which the reader checks
   * before decoding them with the store's; absent otherwise.
   */
  @JsonProperty("feature_params_crc32c")
  @com.fasterxml.jackson.annotation.JsonInclude(
      com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
  public String featureParamsCrc32c;

  @JsonProperty("compression")
  public String compression;

  @JsonProperty("batches_per_shard")
  public int batchesPerShard;

  @JsonProperty("batches_per_epoch")
  public int batchesPerEpoch;

  @JsonProperty("parts_per_epoch")
  public int partsPerEpoch;

  /** The execution mode of the run that wrote the shards (both give the same bytes). */
  @JsonProperty("mode")
  public String mode;

  /** The resolved options of the run. */
  @JsonProperty("options")
  public Map<String, String> options = new LinkedHashMap<>();

  /**
   * Present only in typed shards (batches of a heterogeneous graph, {@code docs/formats.md}, "Typed
   * mini-batch shards"): the seed type, the types and relations the rows are laid out by, and the
   * per-relation fanouts. {@code fanouts} is null in typed shards. Absent (not null) in one-type
   * shards, so their manifests keep their bytes.
   */
  @JsonProperty("typed")
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public Typed typed;

  @JsonProperty("totals")
  public Totals totals = new Totals();

  /** What typed shards are laid out by ({@link #typed}). */
  @JsonPropertyOrder({
    "seed_type",
    "multi_label",
    "layers",
    "types",
    "relations",
    "link_relation",
    "link_reverses",
    "feature_dims",
    "feature_params_crc32c"
  })
  public static final class Typed {
    /** The name of the type the seeds are vertices of. */
    @JsonProperty("seed_type")
    public String seedType;

    /** Whether the rows carry label sets ({@code label_ptr}, {@code label_ids}). */
    @JsonProperty("multi_label")
    public boolean multiLabel;

    /** Hops {@code L} of every batch. */
    @JsonProperty("layers")
    public int layers;

    /** Vertex type names in type order (the order of the rows' per-type arrays). */
    @JsonProperty("types")
    public List<String> types = new ArrayList<>();

    /** Relations in relation order (the order of the rows' blocks within a hop). */
    @JsonProperty("relations")
    public List<TypedRelation> relations = new ArrayList<>();

    /**
     * Link-prediction shards ({@code sample --task link}): the relation whose pairs the rows carry
     * (its destination type is {@link #seedType}); absent for node classification.
     */
    @JsonProperty("link_relation")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public String linkRelation;

    /**
     * Link-prediction shards: the reverses of {@link #linkRelation}, whose blocks also leave out a
     * batch's positive edges; absent for node classification.
     */
    @JsonProperty("link_reverses")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public List<String> linkReverses;

    /**
     * Shards that inline feature rows ({@code features} f32, f16, int8, int4 or pq): per type in
     * {@link #types} order the width of its rows (features per row, as the model reads them), 0 for
     * a type that carries none; absent otherwise.
     */
    @JsonProperty("feature_dims")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public int[] featureDims;

    /**
     * Shards that inline the store's encoded rows ({@code features} int8, int4 or pq): per type in
     * {@link #types} order the CRC32C of the {@code types/<type>/features/params.qnt} the rows were
     * encoded with, null for a type that carries none; absent otherwise (so float shards keep their
     * manifest).
     */
    @JsonProperty("feature_params_crc32c")
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public List<String> featureParamsCrc32c;

    /** The index of {@link #linkRelation} in {@link #relations}, or -1. */
    public int linkRelationIndex() {
      if (linkRelation == null) {
        return -1;
      }
      for (int r = 0; r < relations.size(); r++) {
        if (relations.get(r).name.equals(linkRelation)) {
          return r;
        }
      }
      throw new InvalidInputException(
          "shard manifest: typed link_relation '" + linkRelation + "' is not one of its relations");
    }

    /** The typed section of shards of {@code schema} seeded by type {@code seedType}. */
    public static Typed of(io.fanout.graph.TypedSchema schema, int seedType, int[][] fanouts) {
      Typed t = new Typed();
      t.seedType = schema.type(seedType).name();
      t.multiLabel = schema.type(seedType).multiLabel();
      t.layers = fanouts.length == 0 ? 0 : fanouts[0].length;
      for (io.fanout.graph.TypedSchema.VertexType vt : schema.types()) {
        t.types.add(vt.name());
      }
      for (int r = 0; r < schema.numRelations(); r++) {
        io.fanout.graph.TypedSchema.Relation rel = schema.relation(r);
        TypedRelation tr = new TypedRelation();
        tr.name = rel.name();
        tr.srcType = schema.type(rel.srcType()).name();
        tr.dstType = schema.type(rel.dstType()).name();
        tr.fanouts = fanouts[r].clone();
        t.relations.add(tr);
      }
      return t;
    }

    /** The index of {@link #seedType} in {@link #types}. */
    public int seedTypeIndex() {
      return types.indexOf(seedType);
    }

    /** The shape the rows decode by; fails naming the manifest entry that is inconsistent. */
    public TypedBatchShape shape() {
      int[] src = new int[relations.size()];
      int[] dst = new int[src.length];
      for (int r = 0; r < src.length; r++) {
        TypedRelation rel = relations.get(r);
        src[r] = types.indexOf(rel.srcType);
        dst[r] = types.indexOf(rel.dstType);
        if (src[r] < 0 || dst[r] < 0) {
          throw new InvalidInputException(
              "shard manifest: typed relation '" + rel.name + "' names a type not in " + types);
        }
        if (rel.fanouts == null || rel.fanouts.length != layers) {
          throw new InvalidInputException(
              "shard manifest: typed relation '"
                  + rel.name
                  + "' has fanouts for "
                  + (rel.fanouts == null ? 0 : rel.fanouts.length)
                  + " hops; expected layers = "
                  + layers);
        }
      }
      if (seedTypeIndex() < 0) {
        throw new InvalidInputException(
            "shard manifest: typed seed_type '" + seedType + "' is not in " + types);
      }
      int link = linkRelationIndex();
      if (link >= 0 && !relations.get(link).dstType.equals(seedType)) {
        throw new InvalidInputException(
            "shard manifest: typed link_relation '"
                + linkRelation
                + "' ends in type '"
                + relations.get(link).dstType
                + "', not the seed type '"
                + seedType
                + "'");
      }
      return new TypedBatchShape(types.size(), src, dst, layers, link);
    }

    /** {@code fanouts[r][h-1]} per relation. */
    public int[][] fanouts() {
      int[][] out = new int[relations.size()][];
      for (int r = 0; r < out.length; r++) {
        out[r] = relations.get(r).fanouts.clone();
      }
      return out;
    }
  }

  /** One relation of typed shards. */
  @JsonPropertyOrder({"name", "src_type", "dst_type", "fanouts"})
  public static final class TypedRelation {
    @JsonProperty("name")
    public String name;

    @JsonProperty("src_type")
    public String srcType;

    @JsonProperty("dst_type")
    public String dstType;

    /** Per hop, hop 1 first; -1 = all neighbors, 0 = none. */
    @JsonProperty("fanouts")
    public int[] fanouts;
  }

  /** Whether these are typed shards. */
  @com.fasterxml.jackson.annotation.JsonIgnore
  public boolean isTyped() {
    return typed != null;
  }

  @JsonProperty("files")
  public List<Part> files = new ArrayList<>();

  /** Sums over all parts. */
  @JsonPropertyOrder({"batches", "seeds", "nodes", "edges", "bytes"})
  public static final class Totals {
    @JsonProperty("batches")
    public long batches;

    @JsonProperty("seeds")
    public long seeds;

    @JsonProperty("nodes")
    public long nodes;

    @JsonProperty("edges")
    public long edges;

    @JsonProperty("bytes")
    public long bytes;
  }

  /** One part file: an epoch's batches {@code [first_batch, end_batch)}. */
  @JsonPropertyOrder({
    "path",
    "epoch",
    "part",
    "first_batch",
    "end_batch",
    "seeds",
    "nodes",
    "edges",
    "bytes",
    "crc32c"
  })
  public static final class Part {
    @JsonProperty("path")
    public String path;

    @JsonProperty("epoch")
    public int epoch;

    @JsonProperty("part")
    public int part;

    @JsonProperty("first_batch")
    public int firstBatch;

    @JsonProperty("end_batch")
    public int endBatch;

    @JsonProperty("seeds")
    public long seeds;

    @JsonProperty("nodes")
    public long nodes;

    @JsonProperty("edges")
    public long edges;

    @JsonProperty("bytes")
    public long bytes;

    @JsonProperty("crc32c")
    public String crc32c;
  }

  /**
   * The fingerprint {@code sample} records for the graph store at {@code store}: {@link
   * io.fanout.store.StoreManifest#fingerprint}, which covers every store file's size and CRC32C. A
   * trainer compares it with {@link #storeFingerprint} to reject shards sampled from another store.
   *
   * @throws InvalidInputException when the store has no manifest
   */
  public static String storeFingerprint(Path store) {
    return io.fanout.store.StoreManifest.read(store).fingerprint();
  }

  /** Shards of an earlier release (no {@code data_dir}): SHA-256 of their manifest's bytes. */
  @com.fasterxml.jackson.annotation.JsonIgnore private String legacyFingerprint;

  /**
   * These shards' identity: SHA-256 of the manifest without {@code data_dir} (for shards of an
   * earlier release, of their manifest's bytes, the identity that release gave them), so shards
   * replaced by identical ones keep it. It covers every part's size and CRC32C.
   */
  public String fingerprint() {
    if (legacyFingerprint != null) {
      return legacyFingerprint;
    }
    return io.fanout.store.OutputCommit.fingerprint(JSON, this);
  }

  /**
   * The folder the listed parts are relative to: {@code dir}'s version folder {@link #dataDir}.
   *
   * @throws InvalidInputException when {@code data_dir} is not a version folder inside {@code dir}
   */
  public Path dataRoot(Path dir) {
    return ManifestPaths.dataRoot(
        dir, dir.resolve(FILE).toString(), "shard directory", dataDir == null ? "" : dataDir);
  }

  /** The feature encoding of this output. */
  public FeatureEncoding featureEncoding() {
    return FeatureEncoding.of(features);
  }

  public String toJson() {
    try {
      return JSON.writeValueAsString(this);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Reads and checks {@code DIR/manifest.json} of one-type shards.
   *
   * @throws InvalidInputException when it is missing (incomplete output), not a shard manifest, of
   *     another version, inconsistent with itself, or of typed shards (one line saying so)
   */
  public static ShardManifest read(Path dir) {
    ShardManifest m = readAny(dir);
    if (m.isTyped()) {
      throw new InvalidInputException(
          dir.resolve(FILE)
              + ": typed shards of a heterogeneous graph (seed type '"
              + m.typed.seedType
              + "'); this reader takes one-type shards (train them with a typed model)");
    }
    return m;
  }

  /**
   * Reads and checks {@code DIR/manifest.json} of typed shards, including its typed section.
   *
   * @throws InvalidInputException as {@link #read}, or when the shards are one-type
   */
  public static ShardManifest readTyped(Path dir) {
    ShardManifest m = readAny(dir);
    if (!m.isTyped()) {
      throw new InvalidInputException(
          dir.resolve(FILE)
              + ": one-type shards; this reader takes typed shards of a heterogeneous graph");
    }
    m.typed.shape();
    return m;
  }

  /**
   * Reads and checks {@code DIR/manifest.json}, one-type or typed ({@link #isTyped}): for what
   * handles shard directories whatever their batches (the commit protocol, {@code sample}).
   */
  public static ShardManifest readAny(Path dir) {
    Path file = dir.resolve(FILE);
    String json;
    try {
      json = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new InvalidInputException(
          dir + ": no " + FILE + "; not a complete shard directory (did sample finish?)");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    ShardManifest m;
    try {
      m = JSON.readValue(json, ShardManifest.class);
      if (m.dataDir == null || m.dataDir.isEmpty()) {
        m.legacyFingerprint = io.fanout.store.Checksums.sha256(json);
      }
    } catch (JsonProcessingException e) {
      throw new InvalidInputException(file + ": not a valid shard manifest: " + e.getMessage(), e);
    }
    if (!FORMAT.equals(m.format) || m.version != ShardSchema.VERSION) {
      throw new InvalidInputException(
          file
              + ": format '"
              + m.format
              + "' version "
              + m.version
              + "; expected '"
              + FORMAT
              + "' version "
              + ShardSchema.VERSION);
    }
    if (m.files == null || m.files.size() != (long) m.partsPerEpoch * m.epochs) {
      throw new InvalidInputException(
          file
              + ": lists "
              + (m.files == null ? 0 : m.files.size())
              + " files; expected parts_per_epoch * epochs = "
              + (long) m.partsPerEpoch * m.epochs);
    }
    if (m.dataDir == null) {
      m.dataDir = "";
    }
    ManifestPaths.checkDataDir(file.toString(), "shard directory", m.dataDir);
    for (Part p : m.files) {
      ManifestPaths.check(file.toString(), "shard directory", p.path);
    }
    return m;
  }

  /**
   * Writes the manifest to {@code file} (not atomically: see {@link io.fanout.store.OutputCommit}).
   */
  void write(Path file) {
    try {
      Files.writeString(file, toJson() + "\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
