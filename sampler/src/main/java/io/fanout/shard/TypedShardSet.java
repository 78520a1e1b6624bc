package io.fanout.shard;

import io.fanout.graph.RowDecoder;
import io.fanout.sample.TypedMiniBatch;
import io.fanout.store.InvalidInputException;
import io.fanout.store.ManifestPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.TreeMap;
import java.util.function.IntPredicate;

/**
 * A complete directory of typed shards ({@code docs/formats.md}, "Typed mini-batch shards"), read
 * through its {@link ShardManifest}: the typed counterpart of the trainer's one-type shard set.
 * Training epoch {@code e} reads the shards' epoch {@code e mod E}.
 */
public final class TypedShardSet {
  private final Path dir;
  private final ShardManifest manifest;
  private final TypedBatchShape shape;
  private final List<List<ShardManifest.Part>> epochs;
  private final Path data;
  private final FeatureEncoding features;
  private final int[] featureDims;

  /** Per type the store's decoder of the inline rows; null until {@link #withDecoders}. */
  private final RowDecoder[] decoders;

  private TypedShardSet(
      Path dir,
      ShardManifest manifest,
      TypedBatchShape shape,
      List<List<ShardManifest.Part>> epochs,
      Path data,
      RowDecoder[] decoders) {
    this.dir = dir;
    this.manifest = manifest;
    this.shape = shape;
    this.epochs = epochs;
    this.data = data;
    this.features = encoding(manifest);
    this.featureDims = features == FeatureEncoding.NONE ? null : manifest.typed.featureDims;
    this.decoders = decoders;
  }

  /**
   * Opens {@code dir}; fails when the manifest is missing, is of one-type shards, lists no parts or
   * names a part that is missing.
   */
  public static TypedShardSet open(Path dir) {
    ShardManifest m = ShardManifest.readTyped(dir);
    Path data = m.dataRoot(dir);
    TreeMap<Integer, TreeMap<Integer, ShardManifest.Part>> byEpoch = new TreeMap<>();
    String file = dir.resolve(ShardManifest.FILE).toString();
    for (ShardManifest.Part p : m.files) {
      Path f = ManifestPaths.resolve(data, file, "shard directory", p.path);
      if (!Files.isRegularFile(f)) {
        throw new InvalidInputException(
            file + " lists part " + p.path + " but " + f + " is missing");
      }
      byEpoch.computeIfAbsent(p.epoch, e -> new TreeMap<>()).put(p.part, p);
    }
    if (byEpoch.isEmpty()) {
      throw new InvalidInputException(
          "shard directory " + dir + " lists no part files: empty shard set");
    }
    List<List<ShardManifest.Part>> epochs = new ArrayList<>();
    for (TreeMap<Integer, ShardManifest.Part> parts : byEpoch.values()) {
      epochs.add(new ArrayList<>(parts.values()));
    }
    checkFeatures(m, dir);
    return new TypedShardSet(dir, m, m.typed.shape(), epochs, data, null);
  }

  /** The manifest's feature encoding; none where it names none. */
  private static FeatureEncoding encoding(ShardManifest m) {
    return m.features == null ? FeatureEncoding.NONE : m.featureEncoding();
  }

  /**
   * Refuses a manifest whose inline features are not rows of known widths, or stored rows without
   * the CRC32C of each featured type's parameters.
   */
  private static void checkFeatures(ShardManifest m, Path dir) {
    FeatureEncoding enc;
    try {
      enc = encoding(m);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(dir.resolve(ShardManifest.FILE) + ": " + e.getMessage());
    }
    if (enc == FeatureEncoding.NONE) {
      return;
    }
    int[] dims = m.typed.featureDims;
    List<String> crcs = m.typed.featureParamsCrc32c;
    int types = m.typed.types.size();
    boolean ok =
        dims != null
            && dims.length == types
            && (!enc.stored() || (crcs != null && crcs.size() == types));
    for (int i = 0; ok && i < dims.length; i++) {
      ok = dims[i] >= 0 && (!enc.stored() || (dims[i] > 0) == (crcs.get(i) != null));
    }
    if (!ok) {
      throw new InvalidInputException(
          dir.resolve(ShardManifest.FILE)
              + ": typed shards with features '"
              + m.features
              + "' need typed feature_dims, one width >= 0 per type of "
              + m.typed.types
              + (enc.stored()
                  ? ", and feature_params_crc32c, one per type (null where its width is 0)"
                  : ""));
    }
  }

  public Path dir() {
    return dir;
  }

  public ShardManifest manifest() {
    return manifest;
  }

  /** How the rows decode: types, relations' endpoints and hops. */
  public TypedBatchShape shape() {
    return shape;
  }

  /** The index of the seed type. */
  public int seedType() {
    return manifest.typed.seedTypeIndex();
  }

  /** Sampled epochs {@code E}. */
  public int epochs() {
    return epochs.size();
  }

  /** The part files of training epoch {@code epoch} (sampled epoch {@code epoch mod E}). */
  public List<Path> files(int epoch) {
    List<Path> out = new ArrayList<>();
    for (ShardManifest.Part p : epochs.get(Math.floorMod(epoch, epochs.size()))) {
      out.add(data.resolve(p.path));
    }
    return out;
  }

  /**
   * The batches of training epoch {@code epoch}, in batch order, decoded one part at a time.
   *
   * @param verify check each part's size and CRC32C against the manifest before decoding it
   */
  public Iterator<TypedMiniBatch> batches(int epoch, boolean verify) {
    return batches(epoch, verify, b -> true);
  }

  /**
   * As {@link #batches(int, boolean)}, only the batches whose index {@code keep} accepts: the
   * others are skipped before they are decoded (a data-parallel worker's share).
   */
  public Iterator<TypedMiniBatch> batches(int epoch, boolean verify, IntPredicate keep) {
    int n = parts(epoch);
    return new Iterator<>() {
      private int next;
      private Iterator<EncodedTypedBatch> part;

      @Override
      public boolean hasNext() {
        while (part == null || !part.hasNext()) {
          if (part != null) {
            ((KeptRows<?>) part).close();
            part = null;
          }
          if (next == n) {
            return false;
          }
          part = encoded(epoch, next++, verify, keep);
        }
        return true;
      }

      @Override
      public TypedMiniBatch next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        return decode(part.next());
      }
    };
  }

  /** The number of part files of training epoch {@code epoch}. */
  public int parts(int epoch) {
    return epochs.get(Math.floorMod(epoch, epochs.size())).size();
  }

  /** Part {@code part}'s file of training epoch {@code epoch}. */
  public Path file(int epoch, int part) {
    return data.resolve(epochs.get(Math.floorMod(epoch, epochs.size())).get(part).path);
  }

  /**
   * The undecoded rows of part {@code part} of training epoch {@code epoch} whose batch index
   * {@code keep} accepts, in order ({@link #decode} decodes one, on any thread). The iterator is
   * {@link AutoCloseable}; close it when done.
   *
   * @param verify check the part's size and CRC32C against the manifest before reading it
   */
  public Iterator<EncodedTypedBatch> encoded(
      int epoch, int part, boolean verify, IntPredicate keep) {
    ShardManifest.Part p = epochs.get(Math.floorMod(epoch, epochs.size())).get(part);
    Path f = data.resolve(p.path);
    TypedShardFileReader reader =
        verify
            ? TypedShardFileReader.verified(f, p, dir.resolve(ShardManifest.FILE).toString())
            : new TypedShardFileReader(f);
    return new KeptRows<>(reader, EncodedTypedBatch::batch, keep);
  }

  /** How the rows inline feature rows ({@link FeatureEncoding#NONE}: they do not). */
  public FeatureEncoding featureEncoding() {
    return features;
  }

  /**
   * These shards, their stored rows ({@code int8}, {@code int4}, {@code pq}) decoded with {@code
   * decoders} (per type the store's {@link RowDecoder}, null for a type without inline rows). The
   * caller checks that the store's parameters are the ones the rows were encoded with ({@link
   * ShardManifest.Typed#featureParamsCrc32c}).
   */
  public TypedShardSet withDecoders(RowDecoder[] decoders) {
    return new TypedShardSet(dir, manifest, shape, epochs, data, decoders.clone());
  }

  /**
   * Per type the CRC32C of the parameters the inline rows were encoded with (null for a type
   * without), or null unless the shards inline stored rows.
   */
  public List<String> featureParamsCrc32c() {
    return features.stored()
        ? java.util.Collections.unmodifiableList(
            new ArrayList<>(manifest.typed.featureParamsCrc32c))
        : null;
  }

  /** Per type the width of the inline rows (0: none), or null without inline features. */
  public int[] featureDims() {
    return featureDims == null ? null : featureDims.clone();
  }

  /**
   * A row of these shards as a batch, with its inline feature rows ({@link
   * TypedMiniBatch#inlineFeatures}) where the shards carry them.
   */
  public TypedMiniBatch decode(EncodedTypedBatch e) {
    TypedMiniBatch b = TypedBatchCodec.decode(e, shape);
    if (featureDims == null) {
      return b;
    }
    if (features.stored() && decoders == null) {
      throw new InvalidInputException(
          dir.resolve(ShardManifest.FILE)
              + " inlines feature rows as the graph store encodes them ("
              + features.id()
              + "), but no graph store was given to decode them");
    }
    return b.withInlineFeatures(TypedFeatureRows.decode(e, b, features, featureDims, decoders));
  }
}
