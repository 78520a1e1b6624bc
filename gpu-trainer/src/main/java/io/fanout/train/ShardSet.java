package io.fanout.train;

import io.fanout.features.RowCache;
import io.fanout.graph.FeatureTable;
import io.fanout.graph.RowDecoder;
import io.fanout.nn.FeatureNormKind;
import io.fanout.sample.MiniBatch;
import io.fanout.shard.BatchCodec;
import io.fanout.shard.EncodedBatch;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.KeptRows;
import io.fanout.shard.ShardFileReader;
import io.fanout.shard.ShardManifest;
import io.fanout.store.InvalidInputException;
import io.fanout.store.ManifestPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntPredicate;

/**
 * A complete directory of mini-batch shards ({@code docs/formats.md}, "Mini-batch shards"), read
 * through its {@link ShardManifest}. Training epoch {@code e} reads the shards' epoch {@code e mod
 * E}, where {@code E} is the number of sampled epochs.
 */
public final class ShardSet {
  private final Path dir;
  private final ShardManifest manifest;
  private final List<List<Path>> epochs;
  private final Map<Path, ShardManifest.Part> entries;

  private ShardSet(
      Path dir,
      ShardManifest manifest,
      List<List<Path>> epochs,
      Map<Path, ShardManifest.Part> entries) {
    this.dir = dir;
    this.manifest = manifest;
    this.epochs = epochs;
    this.entries = entries;
  }

  /**
   * Opens {@code dir} through its {@link ShardManifest}; fails when the manifest is missing
   * (incomplete output), lists no parts (empty shard set) or names a part that is missing.
   */
  public static ShardSet open(Path dir) {
    ShardManifest m = ShardManifest.read(dir);
    Path data = m.dataRoot(dir);
    TreeMap<Integer, TreeMap<Integer, Path>> byEpoch = new TreeMap<>();
    Map<Path, ShardManifest.Part> entries = new HashMap<>();
    for (ShardManifest.Part p : m.files) {
      Path f =
          ManifestPaths.resolve(
              data, dir.resolve(ShardManifest.FILE).toString(), "shard directory", p.path);
      if (!Files.isRegularFile(f)) {
        throw new InvalidInputException(
            dir.resolve(ShardManifest.FILE)
                + " lists part "
                + p.path
                + " but "
                + f
                + " is missing");
      }
      byEpoch.computeIfAbsent(p.epoch, e -> new TreeMap<>()).put(p.part, f);
      entries.put(f, p);
    }
    List<List<Path>> epochs = new ArrayList<>();
    for (TreeMap<Integer, Path> parts : byEpoch.values()) {
      epochs.add(new ArrayList<>(parts.values()));
    }
    if (epochs.isEmpty() || m.totals.batches == 0 && m.files.isEmpty()) {
      throw new InvalidInputException(
          "shard directory " + dir + " lists no part files: empty shard set");
    }
    return new ShardSet(dir, m, epochs, entries);
  }

  public Path dir() {
    return dir;
  }

  /** The shard manifest. */
  public ShardManifest manifest() {
    return manifest;
  }

  /** Sampled epochs {@code E}. */
  public int epochs() {
    return epochs.size();
  }

  /**
   * The shard files of training epoch {@code epoch} (that is, sampled epoch {@code epoch mod E}).
   */
  public List<Path> files(int epoch) {
    return epochs.get(Math.floorMod(epoch, epochs.size()));
  }

  /** The inline feature encoding ({@code NONE}: shards hold node ids only). */
  public FeatureEncoding featureEncoding() {
    return manifest.featureEncoding();
  }

  /** Hops of the sampled batches (the number of fanouts). */
  public int layers() {
    return manifest.fanouts == null ? -1 : manifest.fanouts.length;
  }

  /**
   * The batches of every epoch through a {@link PipelinedLoader}: shard files are read and decoded
   * on {@code threads} background threads; features come inline from the shards or are gathered
   * from {@code table}.
   *
   * @param verify check every part's size and CRC32C against the manifest before any of its batches
   *     is decoded ({@link ShardFileReader#verified}): a damaged part fails the stream, naming the
   *     file, when the consumer reaches it, and none of its batches is ever returned
   */
  public EpochData epochData(
      FeatureTable table,
      int dim,
      FeatureNormKind norm,
      int threads,
      int prefetch,
      boolean verify) {
    return epochData(table, null, dim, norm, threads, prefetch, verify);
  }

  /**
   * As {@link #epochData(FeatureTable, int, String, int, int, boolean)}; with a non-null {@code
   * cache} every batch's features are gathered through it, windows of upcoming batches planned
   * ahead (see {@link PipelinedLoader}), and {@code table} is not used. One epoch's stream at a
   * time may be open on one cache.
   */
  public EpochData epochData(
      FeatureTable table,
      RowCache cache,
      int dim,
      FeatureNormKind norm,
      int threads,
      int prefetch,
      boolean verify) {
    return epochData(table, cache, dim, norm, threads, prefetch, verify, true);
  }

  /**
   * As {@link #epochData(FeatureTable, RowCache, int, String, int, int, boolean)}; with {@code
   * gather} false the batches come without features, for a backend that reads the rows of their
   * nodes itself (see {@link PipelinedLoader}).
   */
  public EpochData epochData(
      FeatureTable table,
      RowCache cache,
      int dim,
      FeatureNormKind norm,
      int threads,
      int prefetch,
      boolean verify,
      boolean gather) {
    FeatureEncoding enc = featureEncoding();
    String source = dir.resolve(ShardManifest.FILE).toString();
    // shards that copy the store's encoded rows are decoded with the store's decoder
    RowDecoder decoder = enc.stored() && table != null ? table.decoder() : null;
    if (enc.stored() && decoder == null) {
      throw new InvalidInputException(
          source
              + " inlines feature rows as the graph store encodes them ("
              + enc.id()
              + "), but no graph store was given to decode them");
    }
    return new EpochData() {
      @Override
      public BatchStream open(int epoch) {
        return open(epoch, null);
      }

      @Override
      public BatchStream open(int epoch, IntPredicate keep) {
        return open(epoch, keep, null);
      }

      @Override
      public BatchStream open(int epoch, IntPredicate keep, HotSet hot) {
        List<BatchPart> parts = new ArrayList<>();
        for (Path f : files(epoch)) {
          parts.add(new FilePart(f, enc, decoder, dim, verify ? entries.get(f) : null, source));
        }
        return new PipelinedLoader(
            parts, table, dim, norm, threads, prefetch, keep, cache, gather, hot);
      }

      @Override
      public int batches(int epoch) {
        return manifest.batchesPerEpoch;
      }
    };
  }

  /**
   * A part file; {@code expected} is its entry in the manifest {@code source} when it is verified,
   * else null.
   */
  private record FilePart(
      Path file,
      FeatureEncoding enc,
      RowDecoder decoder,
      int dim,
      ShardManifest.Part expected,
      String source)
      implements BatchPart {
    @Override
    public String name() {
      return file.toString();
    }

    @Override
    public Iterator<DecodedBatch> open() {
      return open(b -> true);
    }

    /** Rows that {@code keep} rejects are skipped before they are decoded. */
    @Override
    public Iterator<DecodedBatch> open(IntPredicate keep) {
      ShardFileReader r =
          expected == null
              ? new ShardFileReader(file)
              : ShardFileReader.verified(file, expected, source);
      return new ClosingIterator(r, enc, decoder, dim, keep);
    }
  }

  private static final class ClosingIterator implements Iterator<DecodedBatch>, AutoCloseable {
    private final KeptRows<EncodedBatch> rows;
    private final FeatureEncoding enc;
    private final RowDecoder decoder;
    private final int dim;

    ClosingIterator(
        ShardFileReader r, FeatureEncoding enc, RowDecoder decoder, int dim, IntPredicate keep) {
      this.rows = new KeptRows<>(r, EncodedBatch::batch, keep);
      this.enc = enc;
      this.decoder = decoder;
      this.dim = dim;
    }

    @Override
    public boolean hasNext() {
      return rows.hasNext();
    }

    @Override
    public DecodedBatch next() {
      EncodedBatch e = rows.next();
      MiniBatch b = BatchCodec.decode(e);
      float[] features;
      if (e.features() == null || enc == FeatureEncoding.NONE) {
        features = null;
      } else if (enc.stored()) {
        features = BatchCodec.decodeStoredFeatures(e, enc, b.nodes().length, decoder, dim);
      } else {
        features = BatchCodec.decodeFeatures(e, enc);
      }
      return new DecodedBatch(b, features);
    }

    @Override
    public void close() {
      rows.close();
    }
  }
}
