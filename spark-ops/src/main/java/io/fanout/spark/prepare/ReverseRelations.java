package io.fanout.spark.prepare;

import io.fanout.store.InvalidInputException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reverse relations of a typed graph. A relation has a reverse when a relation declares itself the
 * reverse of it ({@code "reverse_of"}), or it declares one; the pair's edges are taken on trust
 * (not compared). {@code --add-reverse} adds, after the given relations and in their order,
 * relation {@code rev_NAME} for each relation {@code NAME} that has none: the same table with its
 * endpoints swapped.
 *
 * <p>{@code --undirected} makes each relation within one type symmetric ({@link #symmetric}: every
 * edge also stored reversed in the relation itself, which is then its own reverse, so {@code
 * --add-reverse} adds none for it), and adds {@code rev_NAME} as {@code --add-reverse} does for
 * each relation between two types that has no reverse.
 */
final class ReverseRelations {
  /** The prefix of the relations {@code --add-reverse} adds. */
  static final String PREFIX = "rev_";

  private ReverseRelations() {}

  /**
   * The relations of the store: {@code given}, plus the added reverses: with {@code add} ({@code
   * --add-reverse}) of every relation without one, with {@code undirected} ({@code --undirected})
   * of every relation between two types without one; a relation that {@code undirected} makes
   * symmetric gets none.
   */
  static List<TypedTables.RelationTable> plan(
      List<TypedTables.RelationTable> given, boolean add, boolean undirected) {
    List<TypedTables.RelationTable> out = new ArrayList<>(given);
    if (!add && !undirected) {
      return out;
    }
    Set<String> names = new HashSet<>();
    Set<String> paired = new HashSet<>();
    for (TypedTables.RelationTable r : given) {
      names.add(r.name());
      if (r.reverseOf() != null) {
        paired.add(r.name());
        paired.add(r.reverseOf());
      }
    }
    for (TypedTables.RelationTable r : given) {
      if (paired.contains(r.name()) || symmetric(undirected, r)) {
        continue;
      }
      String name = PREFIX + r.name();
      if (!names.add(name)) {
        throw new InvalidInputException(
            r.source()
                + ": "
                + (add ? "--add-reverse" : "--undirected")
                + " would add its reverse as '"
                + name
                + "', but a relation of that name exists; declare that relation's \"reverse_of\": \""
                + r.name()
                + "\" if it is the reverse, or rename it");
      }
      out.add(r.reversed(name));
    }
    return out;
  }

  /**
   * Whether {@code --undirected} ({@code undirected}) makes relation {@code r} symmetric: it joins
   * one type to itself, so each edge {@code u -> v} is also stored as {@code v -> u} in {@code r}
   * (self-loops once), as the one-table {@code --undirected} stores it.
   */
  static boolean symmetric(boolean undirected, TypedTables.RelationTable r) {
    return undirected && r.srcType().equals(r.dstType());
  }

  /**
   * The reverse of each relation that has one, both ways: a declared {@code "reverse_of"} names its
   * partner, and the partner names it back.
   */
  static Map<String, String> partners(List<TypedTables.RelationTable> relations) {
    Map<String, String> out = new HashMap<>();
    for (TypedTables.RelationTable r : relations) {
      if (r.reverseOf() != null) {
        out.put(r.name(), r.reverseOf());
        out.putIfAbsent(r.reverseOf(), r.name());
      }
    }
    return out;
  }
}
