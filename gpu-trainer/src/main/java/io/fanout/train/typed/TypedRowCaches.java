package io.fanout.train.typed;

import io.fanout.features.CachePolicy;
import io.fanout.features.FeatureFiles;
import io.fanout.features.ReadCoalescing;
import io.fanout.features.RowCache;
import io.fanout.features.RowLayout;
import io.fanout.graph.TypedGraph;
import io.fanout.graph.TypedGraphStore;
import io.fanout.nn.typed.TypedModelConfig;
import io.fanout.store.FeatureParams;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import io.fanout.store.StoreManifest;
import io.fanout.tensor.PageMemory;
import io.fanout.train.TrainFeatureCache;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The row caches of a typed training run: one {@link RowCache} per vertex type whose stored feature
 * rows the model reads, over that type's own feature files ({@code types/<type>/features/}, in its
 * own encoding), and none for the types the model embeds. The types share {@link
 * TypedCacheSettings#bytes} by their encoded feature bytes ({@link #split}: small types whole, the
 * rest in proportion); each type's cache then evicts by the settings' policy among its own rows.
 *
 * <p>One cache per type rather than one keyed by (type, row): a {@link RowCache}'s slots, reader
 * and decoder are those of one set of files of one row width and encoding, which the types do not
 * share; per type the one-type cache serves unchanged.
 */
public final class TypedRowCaches implements AutoCloseable {
  private final TypedCacheSettings settings;
  private final String[] names;
  private final RowCache[] caches; // by type; null where the model reads no stored rows
  private final long[] budget;

  private TypedRowCaches(
      TypedCacheSettings settings, String[] names, RowCache[] caches, long[] budget) {
    this.settings = settings;
    this.names = names;
    this.caches = caches;
    this.budget = budget;
  }

  /**
   * The caches of {@code settings} for the types of {@code cfg} that read stored features, over the
   * feature files of {@code graph}.
   *
   * @throws InvalidInputException when {@code graph} is not a typed graph store, no type reads
   *     stored features, or a {@code belady}/{@code lru} budget is smaller than the widest of their
   *     encoded rows
   */
  public static TypedRowCaches open(
      TypedGraph graph, TypedModelConfig cfg, TypedCacheSettings settings) {
    if (!(graph instanceof TypedGraphStore store)) {
      throw new InvalidInputException(
          "--feature-cache reads the feature files of a typed graph store, and this typed graph"
              + " is not one (a graph held in memory); leave --feature-cache out");
    }
    int types = cfg.numTypes();
    String[] names = new String[types];
    long[] typeBytes = new long[types];
    int widest = -1;
    boolean any = false;
    for (int t = 0; t < types; t++) {
      names[t] = cfg.type(t).name();
      FeatureParams p = store.featureParams(t);
      if (cfg.type(t).embedded() || p == null) {
        continue;
      }
      any = true;
      typeBytes[t] = Math.multiplyExact(store.schema().type(t).count(), (long) p.rowBytes());
      if (widest < 0 || p.rowBytes() > store.featureParams(widest).rowBytes()) {
        widest = t;
      }
    }
    if (!any) {
      throw new InvalidInputException(
          "--feature-cache "
              + settings.policy().id()
              + " caches stored feature rows, but the model reads none of "
              + store.root()
              + " (every type reads a learned embedding, --learned-embeddings); drop"
              + " --feature-cache");
    }
    boolean holds = settings.policy() != CachePolicy.NONE;
    if (holds && settings.bytes() < store.featureParams(widest).rowBytes()) {
      FeatureParams p = store.featureParams(widest);
      throw new InvalidInputException(
          "--feature-cache "
              + settings.policy().id()
              + " needs --feature-cache-bytes of at least one feature row of type '"
              + names[widest]
              + "' ("
              + p.rowBytes()
              + " bytes as the store encodes it, "
              + StoreLayout.encodingName(p.encoding)
              + "), got "
              + settings.bytes()
              + "; give the cache size in bytes, or use --feature-cache none");
    }
    long[] budget = holds ? split(settings.bytes(), typeBytes) : new long[types];
    RowCache[] caches = new RowCache[types];
    try {
      for (int t = 0; t < types; t++) {
        if (typeBytes[t] > 0) {
          caches[t] =
              new RowCache(
                  files(store, t, settings.direct()),
                  settings.policy(),
                  budget[t],
                  PageMemory.HEAP,
                  settings.windowBatches());
          if (caches[t].dim() != cfg.type(t).featureDim()) {
            throw new InvalidInputException(
                "type '"
                    + names[t]
                    + "' has feature rows of width "
                    + caches[t].dim()
                    + ", the model reads "
                    + cfg.type(t).featureDim());
          }
        }
      }
    } catch (RuntimeException e) {
      close(caches);
      throw e;
    }
    return new TypedRowCaches(settings, names, caches, budget);
  }

  /**
   * Type {@code t}'s feature files in {@code store}: one per partition, holding the type-local rows
   * of that partition in the type's recorded order ({@code feature_layout}).
   */
  static FeatureFiles files(TypedGraphStore store, int t, boolean direct) {
    StoreManifest.TypeEntry te = store.manifest().types.get(t);
    long[] starts = store.partitionStarts(t);
    Path dir = store.dataRoot().resolve(StoreLayout.typeDir(te.name));
    Path[] paths = new Path[te.partitions];
    for (int p = 0; p < paths.length; p++) {
      paths[p] = dir.resolve(StoreLayout.featuresFile(p));
    }
    return FeatureFiles.of(
        paths,
        starts,
        store.featureParams(t),
        TrainFeatureCache.IO_THREADS,
        direct,
        ReadCoalescing.defaultFor(direct),
        RowLayout.of(store.featureRowOrder(t)));
  }

  /**
   * {@code bytes} shared among the types of {@code typeBytes} bytes (a type of none gets none), in
   * exact integer arithmetic so that the same options give the same caches on every machine: from
   * the smallest type up (ties by index), a type whose whole table fits in an equal share of what
   * is left among the types not served yet gets its whole table; the first that does not fit stops
   * that, and the rest is split in proportion to the remaining types' bytes, {@code floor(left x
   * typeBytes[t] / their sum)}. A small type that every batch touches (a venue, a category) is kept
   * whole for a small part of the budget, which a split by bytes alone would give a small share of
   * its rows. The parts sum to at most {@code bytes}.
   */
  static long[] split(long bytes, long[] typeBytes) {
    int n = typeBytes.length;
    Integer[] order = new Integer[n];
    int rest = 0;
    for (int t = 0; t < n; t++) {
      order[t] = t;
      rest += typeBytes[t] > 0 ? 1 : 0;
    }
    java.util.Arrays.sort(
        order,
        java.util.Comparator.comparingLong((Integer t) -> typeBytes[t]).thenComparingInt(t -> t));
    long[] out = new long[n];
    boolean[] whole = new boolean[n];
    BigInteger left = BigInteger.valueOf(bytes);
    for (int t : order) {
      if (typeBytes[t] <= 0) {
        continue;
      }
      BigInteger need = BigInteger.valueOf(typeBytes[t]);
      if (need.multiply(BigInteger.valueOf(rest)).compareTo(left) > 0) {
        break;
      }
      out[t] = typeBytes[t];
      whole[t] = true;
      left = left.subtract(need);
      rest--;
    }
    BigInteger total = BigInteger.ZERO;
    for (int t = 0; t < n; t++) {
      if (!whole[t] && typeBytes[t] > 0) {
        total = total.add(BigInteger.valueOf(typeBytes[t]));
      }
    }
    for (int t = 0; t < n; t++) {
      if (!whole[t] && typeBytes[t] > 0) {
        out[t] = left.multiply(BigInteger.valueOf(typeBytes[t])).divide(total).longValueExact();
      }
    }
    return out;
  }

  public TypedCacheSettings settings() {
    return settings;
  }

  /** Type {@code t}'s cache, or null where the model reads no stored rows of it. */
  public RowCache cache(int t) {
    return caches[t];
  }

  /** The number of types (caches or nulls). */
  public int numTypes() {
    return caches.length;
  }

  /** Type {@code t}'s share of the budget in bytes. */
  public long budget(int t) {
    return budget[t];
  }

  /** Row accesses served from the caches so far, all types. */
  public long hits() {
    long h = 0;
    for (RowCache c : caches) {
      h += c == null ? 0 : c.hits();
    }
    return h;
  }

  /** Row accesses read from the feature files so far, all types. */
  public long misses() {
    long m = 0;
    for (RowCache c : caches) {
      m += c == null ? 0 : c.misses();
    }
    return m;
  }

  /** Each cached type's hits and misses so far, for resetting a per-epoch count ({@link #line}). */
  long[] counters() {
    long[] c = new long[2 * caches.length];
    for (int t = 0; t < caches.length; t++) {
      if (caches[t] != null) {
        c[2 * t] = caches[t].hits();
        c[2 * t + 1] = caches[t].misses();
      }
    }
    return c;
  }

  /**
   * One progress line: per cached type its held rows of capacity, and the hits and misses since
   * {@code since} ({@link #counters}; null: since the start).
   */
  String line(String what, long[] since) {
    StringBuilder s =
        new StringBuilder("feature cache ")
            .append(settings.policy().id())
            .append(' ')
            .append(what)
            .append(':');
    long hits = 0;
    long misses = 0;
    for (int t = 0; t < caches.length; t++) {
      RowCache c = caches[t];
      if (c == null) {
        continue;
      }
      long h = c.hits() - (since == null ? 0 : since[2 * t]);
      long m = c.misses() - (since == null ? 0 : since[2 * t + 1]);
      hits += h;
      misses += m;
      s.append(
          String.format(
              Locale.ROOT,
              " %s %d/%d rows (%d bytes) hits %d misses %d;",
              names[t],
              c.residentRows(),
              c.capacityRows(),
              budget[t],
              h,
              m));
    }
    s.append(
        String.format(
            Locale.ROOT,
            " all hits %d misses %d hit rate %.4f",
            hits,
            misses,
            hits + misses == 0 ? 0.0 : hits / (double) (hits + misses)));
    return s.toString();
  }

  @Override
  public void close() {
    close(caches);
  }

  private static void close(RowCache[] caches) {
    for (RowCache c : caches) {
      if (c != null) {
        c.close();
      }
    }
  }
}
