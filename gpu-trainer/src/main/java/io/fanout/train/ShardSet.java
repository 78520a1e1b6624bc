package io.fanout.train;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.graph.FeatureTable;
import io.fanout.shard.BatchCodec;
import io.fanout.shard.EncodedBatch;
import io.fanout.shard.FeatureEncoding;
import io.fanout.shard.ShardFileReader;
import io.fanout.store.InvalidInputException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

/**
 * A complete directory of mini-batch shards ({@code docs/formats.md}, "Mini-batch shards"): {@code
 * manifest.json} and {@code epoch-NNNN/part-NNNNN.parquet}. Training epoch {@code e} reads the
 * shards' epoch {@code e mod E}, where {@code E} is the number of sampled epochs.
 */
public final class ShardSet {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path dir;
  private final JsonNode manifest;
  private final List<List<Path>> epochs;

  private ShardSet(Path dir, JsonNode manifest, List<List<Path>> epochs) {
    this.dir = dir;
    this.manifest = manifest;
    this.epochs = epochs;
  }

  /** Opens {@code dir}; fails when it has no manifest (incomplete) or no shard files. */
  public static ShardSet open(Path dir) {
    Path m = dir.resolve("manifest.json");
    if (!Files.isRegularFile(m)) {
      throw new InvalidInputException(
          "shard directory "
              + dir
              + " has no manifest.json: it is not a complete output of bin/fanout sample");
    }
    JsonNode manifest;
    try {
      manifest = JSON.readTree(m.toFile());
    } catch (IOException e) {
      throw new InvalidInputException("cannot parse " + m + ": " + e.getMessage(), e);
    }
    List<Path> epochDirs = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "epoch-*")) {
      for (Path p : ds) {
        if (Files.isDirectory(p)) {
          epochDirs.add(p);
        }
      }
    } catch (IOException e) {
      throw new InvalidInputException("cannot list " + dir + ": " + e.getMessage(), e);
    }
    epochDirs.sort(null);
    List<List<Path>> epochs = new ArrayList<>();
    for (Path ed : epochDirs) {
      List<Path> files = new ArrayList<>();
      try (DirectoryStream<Path> ds = Files.newDirectoryStream(ed, "part-*.parquet")) {
        for (Path p : ds) {
          files.add(p);
        }
      } catch (IOException e) {
        throw new InvalidInputException("cannot list " + ed + ": " + e.getMessage(), e);
      }
      files.sort(null);
      if (!files.isEmpty()) {
        epochs.add(files);
      }
    }
    if (epochs.isEmpty()) {
      throw new InvalidInputException(
          "shard directory " + dir + " holds no epoch-*/part-*.parquet files: empty shard set");
    }
    return new ShardSet(dir, manifest, epochs);
  }

  public Path dir() {
    return dir;
  }

  /** The parsed {@code manifest.json}. */
  public JsonNode manifest() {
    return manifest;
  }

  /** A string field of the manifest, or null. */
  public String manifestText(String field) {
    JsonNode n = manifest.get(field);
    return n == null || n.isNull() ? null : n.asText();
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

  /** The inline feature encoding named by the manifest ({@code none} when absent). */
  public FeatureEncoding featureEncoding() {
    for (String k : new String[] {"feature_encoding", "features"}) {
      String v = manifestText(k);
      if (v != null) {
        try {
          return FeatureEncoding.valueOf(v.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
          throw new InvalidInputException(
              dir.resolve("manifest.json")
                  + " has "
                  + k
                  + " '"
                  + v
                  + "'; expected none, f32 or f16");
        }
      }
    }
    return FeatureEncoding.NONE;
  }

  /**
   * The batches of every epoch through a {@link PipelinedLoader}: shard files are read and decoded
   * on {@code threads} background threads; features come inline from the shards or are gathered
   * from {@code table}.
   */
  public EpochData epochData(FeatureTable table, int dim, String norm, int threads, int prefetch) {
    FeatureEncoding enc = featureEncoding();
    return epoch -> {
      List<BatchPart> parts = new ArrayList<>();
      for (Path f : files(epoch)) {
        parts.add(new FilePart(f, enc));
      }
      return new PipelinedLoader(parts, table, dim, norm, threads, prefetch);
    };
  }

  private record FilePart(Path file, FeatureEncoding enc) implements BatchPart {
    @Override
    public String name() {
      return file.toString();
    }

    @Override
    public Iterator<DecodedBatch> open() {
      ShardFileReader r = new ShardFileReader(file);
      return new ClosingIterator(r, enc);
    }
  }

  private static final class ClosingIterator implements Iterator<DecodedBatch>, AutoCloseable {
    private final ShardFileReader r;
    private final FeatureEncoding enc;

    ClosingIterator(ShardFileReader r, FeatureEncoding enc) {
      this.r = r;
      this.enc = enc;
    }

    @Override
    public boolean hasNext() {
      return r.hasNext();
    }

    @Override
    public DecodedBatch next() {
      EncodedBatch e = r.next();
      float[] features =
          e.features() == null
              ? null
              : BatchCodec.decodeFeatures(
                  e, enc == FeatureEncoding.NONE ? FeatureEncoding.F32 : enc);
      return new DecodedBatch(BatchCodec.decode(e), features);
    }

    @Override
    public void close() {
      r.close();
    }
  }
}
