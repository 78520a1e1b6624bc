package io.fanout.spark.generate;

import io.fanout.conf.FanoutConfigException;
import io.fanout.store.StoreLayout;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The shape of a generated typed graph, as {@code generate --types T --relations R} writes it:
 *
 * <ul>
 *   <li>{@code --types 'paper:100000:64,author:50000:0,term:20000'}: per vertex type {@code
 *       name:count[:dim]}, its number of vertices and feature width ({@code 0} = no features
 *       column; left out = {@code --feature-dim}). The types' order is their order in the graph
 *       description, and so their dense-id order in the store.
 *   <li>{@code --relations 'writes=author>paper:500000,paper>paper:800000:0.5'}: per relation
 *       {@code [name=]src>dst:edges[:homophily]}, its source and destination types, number of edge
 *       rows and the share of its edges whose source is moved into the destination's community
 *       (left out = {@code --homophily}); the name defaults to {@code src_dst}.
 * </ul>
 *
 * Every mistake is refused with one line naming the option, the entry and what was expected.
 *
 * @param types vertex types, in order
 * @param relations relations, in order
 * @param target the index of the labelled type
 */
public record TypedGraphLayout(List<Type> types, List<Relation> relations, int target)
    implements Serializable {

  /** A vertex type: {@code count} vertices of {@code dim} features ({@code 0}: none). */
  public record Type(String name, long count, int dim) implements Serializable {}

  /** A relation of {@code edges} edge rows from type {@code src} to type {@code dst} (indices). */
  public record Relation(String name, int src, int dst, long edges, double homophily)
      implements Serializable {}

  public TypedGraphLayout {
    types = List.copyOf(types);
    relations = List.copyOf(relations);
  }

  /**
   * Parses the two options; {@code defaultDim} and {@code defaultHomophily} fill the fields left
   * out, {@code target} names the labelled type (empty = the first type).
   */
  public static TypedGraphLayout parse(
      String typesText,
      String relationsText,
      String target,
      int defaultDim,
      double defaultHomophily) {
    List<Type> types = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (String entry : entries(typesText, "types", "name:count[:dim]")) {
      String[] f = entry.split(":", -1);
      if (f.length < 2 || f.length > 3) {
        throw error("types", entry, "expected name:count[:dim], e.g. paper:100000:64");
      }
      String name = name("types", entry, f[0].trim());
      if (!names.add(name)) {
        throw error("types", entry, "type '" + name + "' is named twice");
      }
      long count = number("types", entry, "count", f[1], 1);
      int dim =
          f.length == 3
              ? Math.toIntExact(number("types", entry, "dim", f[2], 0))
              : Math.max(0, defaultDim);
      types.add(new Type(name, count, dim));
    }
    List<Relation> relations = new ArrayList<>();
    Set<String> relationNames = new HashSet<>();
    for (String entry : entries(relationsText, "relations", "[name=]src>dst:edges[:homophily]")) {
      int eq = entry.indexOf('=');
      String body = eq < 0 ? entry : entry.substring(eq + 1);
      String[] f = body.split(":", -1);
      String[] ends = f[0].split(">", -1);
      if (f.length < 2 || f.length > 3 || ends.length != 2) {
        throw error(
            "relations",
            entry,
            "expected [name=]src>dst:edges[:homophily], e.g. writes=author>paper:500000");
      }
      int src = typeIndex(types, entry, ends[0].trim());
      int dst = typeIndex(types, entry, ends[1].trim());
      String name =
          name(
              "relations",
              entry,
              eq < 0
                  ? types.get(src).name() + "_" + types.get(dst).name()
                  : entry.substring(0, eq));
      if (!relationNames.add(name)) {
        throw error("relations", entry, "relation '" + name + "' is named twice");
      }
      long edges = number("relations", entry, "edges", f[1], 0);
      double homophily = defaultHomophily;
      if (f.length == 3) {
        try {
          homophily = Double.parseDouble(f[2].trim());
        } catch (NumberFormatException e) {
          homophily = Double.NaN;
        }
      }
      if (!(homophily >= 0 && homophily <= 1)) {
        throw error("relations", entry, "homophily '" + f[f.length - 1] + "'; expected 0 to 1");
      }
      relations.add(new Relation(name, src, dst, edges, homophily));
    }
    int t = 0;
    if (target != null && !target.isBlank()) {
      t = -1;
      for (int i = 0; i < types.size(); i++) {
        if (types.get(i).name().equals(target.trim())) {
          t = i;
        }
      }
      if (t < 0) {
        throw new FanoutConfigException(
            "option 'target-type': '" + target + "' is not one of --types " + names(types));
      }
    }
    return new TypedGraphLayout(types, relations, t);
  }

  /** The total number of vertices over all types. */
  public long numVertices() {
    long n = 0;
    for (Type t : types) {
      n += t.count();
    }
    return n;
  }

  /** The total number of edge rows over all relations. */
  public long numEdges() {
    long n = 0;
    for (Relation r : relations) {
      n += r.edges();
    }
    return n;
  }

  private static List<String> entries(String text, String option, String form) {
    List<String> out = new ArrayList<>();
    if (text == null || text.isBlank()) {
      throw new FanoutConfigException(
          "option '" + option + "': empty; expected comma-separated " + form);
    }
    for (String e : text.split(",", -1)) {
      if (e.isBlank()) {
        throw new FanoutConfigException(
            "option '" + option + "': an empty entry in '" + text + "'; expected " + form);
      }
      out.add(e.trim());
    }
    return out;
  }

  private static String name(String option, String entry, String name) {
    if (!StoreLayout.validName(name)) {
      throw error(option, entry, "name '" + name + "' is not " + StoreLayout.NAME_RULE);
    }
    return name;
  }

  private static long number(String option, String entry, String field, String text, long min) {
    long v;
    try {
      v = Long.parseLong(text.trim());
    } catch (NumberFormatException e) {
      throw error(option, entry, field + " '" + text + "' is not a whole number");
    }
    if (v < min || (field.equals("dim") && v > Integer.MAX_VALUE)) {
      throw error(option, entry, field + " " + v + "; expected at least " + min);
    }
    return v;
  }

  private static int typeIndex(List<Type> types, String entry, String name) {
    for (int i = 0; i < types.size(); i++) {
      if (types.get(i).name().equals(name)) {
        return i;
      }
    }
    throw error("relations", entry, "unknown type '" + name + "'; expected one of " + names(types));
  }

  private static List<String> names(List<Type> types) {
    List<String> out = new ArrayList<>();
    types.forEach(t -> out.add(t.name()));
    return out;
  }

  private static FanoutConfigException error(String option, String entry, String what) {
    return new FanoutConfigException("option '" + option + "': '" + entry + "': " + what);
  }
}
