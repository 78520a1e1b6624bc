package io.fanout.graph;

import io.fanout.store.FeatureLayoutKind;
import io.fanout.store.StoreLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;

/**
 * The {@link FeatureLayoutKind#SEED_GROUPS} layout of a typed store, in steps that each read one
 * partition's staged files, so that {@code prepare} runs it in Spark tasks with a shuffle between
 * them and nothing in proportion to the graph in one place.
 *
 * <p>The rule. The seeds are the training vertices of the target type (all its vertices when it has
 * none), in type-local id order. A vertex {@code u} of any type gets the <em>first-use key</em>
 * {@code (s, h)}, the smallest seed {@code s} whose typed two-hop in-neighborhood holds it and the
 * hop {@code h} at which {@code s} first reaches it: 0 for the seed itself, 1 for an in-neighbor of
 * {@code s} over any relation into the target type, 2 for an in-neighbor of such a vertex over any
 * relation into its type. Keys compare by seed, then hop. Inside each partition of each type with
 * feature rows, the rows are ordered by key, then type-local id; the rows no seed reaches follow,
 * in id order. A vertex is placed in its own type's files; types without feature rows are walked
 * through but have no layout. As for one-type stores, rows never leave their partition.
 *
 * <p>The steps: {@link #seeds} (one task per partition of the target type) lists each seed with key
 * {@code (s, 0)} and its in-neighbors with {@code (s, 1)}; the keys are reduced by id with {@code
 * min} and grouped by partition; {@link #hopTwo} (one task per partition) lists the in-neighbors of
 * every vertex whose key has hop 1 with that key's hop 2; reduced again, {@link #layOut} (one task
 * per partition) moves the partition's rows and writes its slice of the type's order file. {@link
 * #start} comes first and {@link #finish} last. A key is a {@code long}: {@code 3 s + h} ({@link
 * #key}), so {@code min} is the order above; the result does not depend on the number of tasks or
 * the order in which pairs arrive.
 */
public final class TypedSeedGroupOrder {
  /** The key of a vertex no seed reaches. */
  public static final long UNREACHED = Long.MAX_VALUE;

  private static final String UNORDERED = PartitionRelayout.UNORDERED;

  private TypedSeedGroupOrder() {}

  /** Receives a (global dense id, first-use key) pair. */
  @FunctionalInterface
  public interface KeySink {
    void accept(long id, long key);
  }

  /** The key of seed {@code s} (type-local) reaching a vertex at hop {@code hop}. */
  public static long key(long s, int hop) {
    return 3 * s + hop;
  }

  /** Whether the in-neighbors of a vertex of key {@code key} are reached through it (hop 1). */
  public static boolean expands(long key) {
    return key != UNREACHED && key % 3 == 1;
  }

  /**
   * Lists, for partition {@code p} (type-local) of the target type staged in {@code dataDir}, each
   * of its seeds with hop 0 and each seed's in-neighbors over every relation into the target type
   * with hop 1 (global ids; an id may come more than once).
   */
  public static void seeds(Path dataDir, TypedStagedGraph g, int p, KeySink out) {
    int t = g.target();
    long first = g.typeStarts()[t][p];
    long base = g.firstVertex(t);
    VertexTable nodes = g.nodes(dataDir, t, p);
    int n = Math.toIntExact(g.typeStarts()[t][p + 1] - first);
    CsrGraph[] into = relationsInto(dataDir, g, t, p);
    long[] srcBase = sourceBases(g);
    for (int i = 0; i < n; i++) {
      if (!g.everySeed() && nodes.split(i) != StoreLayout.SPLIT_TRAIN) {
        continue;
      }
      long s = first + i;
      out.accept(base + s, key(s, 0));
      emitNeighbors(into, srcBase, i, key(s, 1), out);
    }
  }

  /**
   * Lists the in-neighbors, over every relation into its type, of each vertex {@code ids[i]}
   * (global ids in global partition {@code part}) whose key {@code keys[i]} has hop 1 ({@link
   * #expands}), with that key's hop 2; {@code count} pairs are read.
   */
  public static void hopTwo(
      Path dataDir, TypedStagedGraph g, int part, long[] ids, long[] keys, int count, KeySink out) {
    int t = g.typeOf(part);
    int p = part - g.firstPartition(t);
    long base = g.firstVertex(t) + g.typeStarts()[t][p];
    CsrGraph[] into = relationsInto(dataDir, g, t, p);
    long[] srcBase = sourceBases(g);
    for (int i = 0; i < count; i++) {
      if (expands(keys[i])) {
        emitNeighbors(into, srcBase, Math.toIntExact(ids[i] - base), keys[i] + 1, out);
      }
    }
  }

  /** Partition {@code p} of every relation into type {@code t}; null for the others. */
  static CsrGraph[] relationsInto(Path dataDir, TypedStagedGraph g, int t, int p) {
    CsrGraph[] into = new CsrGraph[g.relNames().length];
    for (int r = 0; r < into.length; r++) {
      if (g.relDst()[r] == t) {
        into[r] = g.csr(dataDir, r, p);
      }
    }
    return into;
  }

  /** The global id of each relation's source type's first vertex. */
  static long[] sourceBases(TypedStagedGraph g) {
    long[] bases = new long[g.relSrc().length];
    for (int r = 0; r < bases.length; r++) {
      bases[r] = g.firstVertex(g.relSrc()[r]);
    }
    return bases;
  }

  private static void emitNeighbors(
      CsrGraph[] into, long[] srcBase, int row, long key, KeySink out) {
    for (int r = 0; r < into.length; r++) {
      if (into[r] == null) {
        continue;
      }
      for (long e = into[r].rowStart(row), end = into[r].rowEnd(row); e < end; e++) {
        out.accept(srcBase[r] + into[r].neighbor(e), key);
      }
    }
  }

  /**
   * The positions, in {@code [0, keys.length)}, of a partition's rows whose first-use keys are
   * {@code keys} (row {@code i}'s key {@code keys[i]}, {@link #UNREACHED} for none): by key, then
   * row; the unreached rows after, in row order.
   */
  public static int[] order(long[] keys) {
    int n = keys.length;
    long[] distinct = Arrays.stream(keys).filter(k -> k != UNREACHED).sorted().distinct().toArray();
    long[] sorted = new long[n];
    int reached = 0;
    for (int i = 0; i < n; i++) {
      if (keys[i] != UNREACHED) {
        sorted[reached++] = ((long) Arrays.binarySearch(distinct, keys[i]) << 31) | i;
      }
    }
    Arrays.sort(sorted, 0, reached);
    int[] positions = new int[n];
    for (int pos = 0; pos < reached; pos++) {
      positions[(int) (sorted[pos] & 0x7fffffffL)] = pos;
    }
    int next = reached;
    for (int i = 0; i < n; i++) {
      if (keys[i] == UNREACHED) {
        positions[i] = next++;
      }
    }
    return positions;
  }

  /**
   * Begins the order file of every type with feature rows, sized for the type, recording layout
   * {@code kind} ({@link FeatureLayoutKind#SEED_GROUPS}, or {@link FeatureLayoutKind#NEIGHBORHOOD}
   * whose steps build on these: {@link TypedNeighborhoodOrder}).
   */
  public static void start(Path dataDir, TypedStagedGraph g, FeatureLayoutKind kind) {
    for (int t = 0; t < g.numTypes(); t++) {
      if (g.features()[t]) {
        long[] s = g.typeStarts()[t];
        FeatureRowOrder.start(orderFile(dataDir, g, t), s[s.length - 1], kind);
      }
    }
  }

  /**
   * Lays out global partition {@code part} whose rows have the first-use keys {@code keys} ({@code
   * keys[i]} of its {@code i}-th vertex): its feature file's rows moved to {@link #order}'s
   * positions and its slice of its type's order file written. Nothing for a type without feature
   * rows. Can be run again on a partition (a retried task): the rows are read from the file kept at
   * their ids ({@code <file>.unordered}).
   */
  public static void layOut(Path dataDir, TypedStagedGraph g, int part, long[] keys) {
    if (g.features()[g.typeOf(part)]) {
      moveRows(dataDir, g, part, order(keys));
    }
  }

  /**
   * Moves global partition {@code part}'s rows (of a type with feature rows) to positions {@code
   * local} (row {@code i} to {@code local[i]}, a permutation of the partition's rows from 0) and
   * writes its slice of its type's order file, as {@link #layOut} describes.
   */
  static void moveRows(Path dataDir, TypedStagedGraph g, int part, int[] local) {
    int t = g.typeOf(part);
    int p = part - g.firstPartition(t);
    long first = g.typeStarts()[t][p];
    int[] positions = new int[local.length];
    for (int i = 0; i < local.length; i++) {
      positions[i] = Math.toIntExact(first + local[i]);
    }
    Path typeDir = dataDir.resolve(StoreLayout.typeDir(g.typeNames()[t]));
    Path file = typeDir.resolve(StoreLayout.featuresFile(p));
    Path unordered = file.resolveSibling(file.getFileName() + UNORDERED);
    try {
      if (!Files.exists(unordered)) {
        Files.move(file, unordered, StandardCopyOption.ATOMIC_MOVE);
      }
      int rowBytes = FeatureRelayout.rowBytes(unordered);
      FeatureRelayout.rewrite(unordered, file, Math.toIntExact(first), rowBytes, positions);
    } catch (IOException e) {
      throw new UncheckedIOException("laying out " + file + " failed: " + e.getMessage(), e);
    }
    FeatureRowOrder.writeSlice(orderFile(dataDir, g, t), first, positions);
  }

  /** Removes the feature files {@link #layOut} kept with their rows at their ids. */
  public static void finish(Path dataDir, TypedStagedGraph g) {
    for (int t = 0; t < g.numTypes(); t++) {
      if (!g.features()[t]) {
        continue;
      }
      for (int p = 0; p + 1 < g.typeStarts()[t].length; p++) {
        Path kept =
            dataDir
                .resolve(StoreLayout.typeDir(g.typeNames()[t]))
                .resolve(StoreLayout.featuresFile(p) + UNORDERED);
        try {
          Files.deleteIfExists(kept);
        } catch (IOException e) {
          throw new UncheckedIOException("cannot remove " + kept, e);
        }
      }
    }
  }

  private static Path orderFile(Path dataDir, TypedStagedGraph g, int t) {
    return dataDir
        .resolve(StoreLayout.typeDir(g.typeNames()[t]))
        .resolve(StoreLayout.FEATURE_ORDER);
  }
}
