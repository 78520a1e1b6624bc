package io.fanout.sample;

import io.fanout.graph.TypedSchema;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-relation, per-hop fanouts of a typed graph: {@code fanouts[r][h-1]} in-neighbors over
 * relation {@code r} per frontier node at hop {@code h}; -1 takes all, 0 samples nothing over that
 * relation at that hop.
 *
 * <p>The text form is {@code name=10,5;other=5,3;*=10,5}: a relation name (or {@code *}, the
 * default for every relation not named) and its fanouts, hop 1 (from the seeds) first. A plain list
 * such as {@code 25,10} gives every relation the same fanouts. Every relation must end up with the
 * same number of hops.
 */
public final class TypedFanouts {
  private TypedFanouts() {}

  /** The default entry's name. */
  public static final String DEFAULT = "*";

  /**
   * Parses {@code text} against {@code schema}.
   *
   * @return {@code fanouts[r]} per relation of {@code schema}, in relation order
   * @throws IllegalArgumentException naming the first mistake and what was expected
   */
  public static int[][] parse(String text, TypedSchema schema) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException(
          "expected fanouts such as 'rel=10,5;*=10,5' or '10,5' for every relation");
    }
    int relations = schema.numRelations();
    if (relations == 0) {
      throw new IllegalArgumentException("the graph has no relations to sample");
    }
    Map<String, int[]> byName = entries(text, schema);
    int[][] out = new int[relations][];
    return resolve(byName, schema, out);
  }

  /**
   * Checks the text form without a graph: its syntax, each list's values, and no relation named
   * twice; the relation names and hop counts are checked against the graph by {@link #parse}.
   *
   * @throws IllegalArgumentException naming the first mistake and what was expected
   */
  public static void checkText(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException(
          "expected fanouts such as 'rel=10,5;*=10,5' or '10,5' for every relation");
    }
    entries(text, null);
  }

  /**
   * The fanouts of each name in {@code text}; names are checked against {@code schema} if given.
   */
  private static Map<String, int[]> entries(String text, TypedSchema schema) {
    Map<String, int[]> byName = new LinkedHashMap<>();
    String trimmed = text.trim();
    if (!trimmed.contains("=")) {
      byName.put(DEFAULT, hops(trimmed, "every relation"));
    } else {
      for (String entry : trimmed.split(";", -1)) {
        String e = entry.trim();
        int eq = e.indexOf('=');
        if (eq < 0) {
          throw new IllegalArgumentException(
              "entry '" + e + "' has no '='; expected 'relation=10,5' or '*=10,5'");
        }
        String name = e.substring(0, eq).trim();
        if (name.isEmpty()) {
          throw new IllegalArgumentException(
              "entry '" + e + "' names no relation; expected 'relation=10,5' or '*=10,5'");
        }
        if (schema != null && !name.equals(DEFAULT) && schema.relationIndex(name) < 0) {
          throw new IllegalArgumentException(
              "unknown relation '" + name + "'; the graph's relations are " + names(schema));
        }
        String who = name.equals(DEFAULT) ? "the default '*'" : "relation '" + name + "'";
        if (byName.put(name, hops(e.substring(eq + 1), who)) != null) {
          throw new IllegalArgumentException(who + " is given fanouts twice");
        }
      }
    }
    return byName;
  }

  private static int[][] resolve(Map<String, int[]> byName, TypedSchema schema, int[][] out) {
    int relations = out.length;
    int layers = -1;
    String first = null;
    for (int r = 0; r < relations; r++) {
      String name = schema.relation(r).name();
      int[] f = byName.get(name);
      if (f == null) {
        f = byName.get(DEFAULT);
      }
      if (f == null) {
        throw new IllegalArgumentException(
            "relation '" + name + "' has no fanouts; add '" + name + "=...' or '*=...'");
      }
      if (layers < 0) {
        layers = f.length;
        first = name;
      } else if (f.length != layers) {
        throw new IllegalArgumentException(
            "relation '"
                + name
                + "' has "
                + f.length
                + " hop(s) of fanouts but relation '"
                + first
                + "' has "
                + layers
                + "; every relation needs the same number of hops");
      }
      out[r] = f.clone();
    }
    return out;
  }

  private static int[] hops(String list, String who) {
    String[] parts = list.trim().split(",", -1);
    if (list.isBlank()) {
      throw new IllegalArgumentException(who + " has no fanouts; expected a list such as 10,5");
    }
    int[] out = new int[parts.length];
    for (int i = 0; i < parts.length; i++) {
      String p = parts[i].trim();
      int f;
      try {
        f = Integer.parseInt(p);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            who + ": fanout " + (i + 1) + " is '" + p + "'; expected an integer >= 0 or -1 (all)");
      }
      if (f < -1) {
        throw new IllegalArgumentException(
            who + ": fanout " + (i + 1) + " is " + f + "; expected an integer >= 0 or -1 (all)");
      }
      out[i] = f;
    }
    return out;
  }

  private static String names(TypedSchema schema) {
    List<String> out = new ArrayList<>();
    for (TypedSchema.Relation r : schema.relations()) {
      out.add(r.name());
    }
    return String.join(", ", out);
  }

  /** Hops of parsed fanouts. */
  public static int layers(int[][] fanouts) {
    return fanouts.length == 0 ? 0 : fanouts[0].length;
  }

  /**
   * The canonical text of {@code fanouts}: every relation of {@code schema} named, in relation
   * order, e.g. {@code cites=10,5;writes=5,3}. Parsing it gives {@code fanouts} back.
   */
  public static String format(int[][] fanouts, TypedSchema schema) {
    StringBuilder s = new StringBuilder();
    for (int r = 0; r < fanouts.length; r++) {
      if (r > 0) {
        s.append(';');
      }
      s.append(schema.relation(r).name()).append('=').append(Fanouts.format(fanouts[r]));
    }
    return s.toString();
  }
}
