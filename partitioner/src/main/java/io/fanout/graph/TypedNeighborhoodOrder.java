package io.fanout.graph;

import io.fanout.store.FeatureLayoutKind;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The {@link FeatureLayoutKind#NEIGHBORHOOD} layout of a typed store: {@link TypedSeedGroupOrder}'s
 * first-use order, then regrouped as the one-type {@link NeighborhoodOrder} regroups, in steps that
 * each read one partition's staged files (Spark tasks in {@code prepare}).
 *
 * <p>The rule. Every vertex of any type gets the first-use key {@code (s, h)} of {@link
 * TypedSeedGroupOrder} and with it a <em>group</em>: seed {@code s}'s group (all types share it),
 * or, when no seed reaches it, a group of its own after every seed's, in global id order ({@link
 * #group}). Then each row of a type with feature rows joins the group most of the vertices that
 * draw it are in: its out-neighbors over every relation out of its type (a row is sampled when one
 * of them is expanded; on a graph with {@code --add-reverse} they are its in-neighbors too), the
 * vertex itself left out, its own group counting one more, ties to the smaller group ({@link
 * NeighborhoodOrder#joined}); every row decides from the groups the keys gave. Inside each
 * partition rows are ordered by the group they joined and, inside a group, in first-use order (key,
 * then id; the unreached last, in id order), by {@link NeighborhoodOrder#byGroup}. Rows never leave
 * their partition; types without feature rows are walked through and have no layout.
 *
 * <p>The steps, after {@link TypedSeedGroupOrder}'s key rounds: {@link #drawnBy} (one task per
 * partition, with its keys) lists, from its own CSR files, each in-neighbor whose type has feature
 * rows with the group of the partition's vertex it points to; the pairs go to the partition that
 * owns the in-neighbor, where {@link #order} gives the positions and {@link
 * TypedSeedGroupOrder#moveRows} moves the rows. The pairs' order and the number of tasks do not
 * change the result: a row's choice depends on the multiset of groups it receives.
 */
public final class TypedNeighborhoodOrder {
  private TypedNeighborhoodOrder() {}

  /**
   * The group of global id {@code id} with first-use key {@code key}: its seed (type-local target
   * id), or {@code seedGroups + id} when no seed reaches it.
   *
   * @param seedGroups the target type's vertex count ({@link #seedGroups})
   */
  public static long group(long seedGroups, long id, long key) {
    return key == TypedSeedGroupOrder.UNREACHED ? seedGroups + id : key / 3;
  }

  /** The number of seed groups that can be: the target type's vertices. */
  public static long seedGroups(TypedStagedGraph g) {
    long[] s = g.typeStarts()[g.target()];
    return s[s.length - 1];
  }

  /**
   * Lists, for global partition {@code part} whose vertices have the first-use keys {@code keys},
   * every in-neighbor {@code u} over each relation into its type whose source type has feature
   * rows, with the group of the vertex {@code v} the edge points to: (global {@code u}, group of
   * {@code v}); nothing for a self-loop.
   */
  public static void drawnBy(
      Path dataDir, TypedStagedGraph g, int part, long[] keys, TypedSeedGroupOrder.KeySink out) {
    int t = g.typeOf(part);
    int p = part - g.firstPartition(t);
    long base = g.firstVertex(t) + g.typeStarts()[t][p];
    CsrGraph[] into = TypedSeedGroupOrder.relationsInto(dataDir, g, t, p);
    long[] srcBase = TypedSeedGroupOrder.sourceBases(g);
    long seedGroups = seedGroups(g);
    for (int r = 0; r < into.length; r++) {
      if (into[r] == null || !g.features()[g.relSrc()[r]]) {
        continue;
      }
      for (int i = 0; i < keys.length; i++) {
        long v = base + i;
        long grp = group(seedGroups, v, keys[i]);
        for (long e = into[r].rowStart(i), end = into[r].rowEnd(i); e < end; e++) {
          long u = srcBase[r] + into[r].neighbor(e);
          if (u != v) {
            out.accept(u, grp);
          }
        }
      }
    }
  }

  /**
   * The positions, in {@code [0, keys.length)}, of the rows of a partition whose first global id is
   * {@code first}: row {@code i} has first-use key {@code keys[i]}, and the pairs {@code (ids[c],
   * groups[c])}, {@code c < count}, are the groups of the vertices that draw the rows ({@link
   * #drawnBy}'s pairs for this partition, in any order).
   */
  public static int[] order(
      long[] keys, long first, long seedGroups, long[] ids, long[] groups, int count) {
    int n = keys.length;
    long[] own = new long[n];
    for (int i = 0; i < n; i++) {
      own[i] = group(seedGroups, first + i, keys[i]);
    }
    // groups ranked in order, so that the shared int rules apply
    long[] distinct = new long[n + count];
    System.arraycopy(own, 0, distinct, 0, n);
    System.arraycopy(groups, 0, distinct, n, count);
    Arrays.sort(distinct);
    int d = 0;
    for (int i = 0; i < distinct.length; i++) {
      if (i == 0 || distinct[i] != distinct[i - 1]) {
        distinct[d++] = distinct[i];
      }
    }
    // the received groups' ranks bucketed by row
    int[] start = new int[n + 1];
    for (int c = 0; c < count; c++) {
      start[Math.toIntExact(ids[c] - first) + 1]++;
    }
    for (int i = 0; i < n; i++) {
      start[i + 1] += start[i];
    }
    int[] fill = Arrays.copyOf(start, n);
    int[] ranks = new int[count];
    for (int c = 0; c < count; c++) {
      ranks[fill[Math.toIntExact(ids[c] - first)]++] =
          Arrays.binarySearch(distinct, 0, d, groups[c]);
    }
    int[] moved = new int[n];
    for (int i = 0; i < n; i++) {
      Arrays.sort(ranks, start[i], start[i + 1]);
      int mine = Arrays.binarySearch(distinct, 0, d, own[i]);
      moved[i] = NeighborhoodOrder.joined(ranks, start[i], start[i + 1], mine);
    }
    return NeighborhoodOrder.byGroup(moved, d, TypedSeedGroupOrder.order(keys));
  }

  /**
   * Lays out global partition {@code part} by {@link #order} (its first-use keys and the pairs of
   * the vertices that draw its rows), as {@link TypedSeedGroupOrder#layOut} lays out by keys alone:
   * rows moved, the type's order file's slice written, a retried task reading the kept rows.
   * Nothing for a type without feature rows.
   */
  public static void layOut(
      Path dataDir,
      TypedStagedGraph g,
      int part,
      long[] keys,
      long[] ids,
      long[] groups,
      int count) {
    int t = g.typeOf(part);
    if (g.features()[t]) {
      long first = g.firstVertex(t) + g.typeStarts()[t][part - g.firstPartition(t)];
      TypedSeedGroupOrder.moveRows(
          dataDir, g, part, order(keys, first, seedGroups(g), ids, groups, count));
    }
  }
}
