package io.fanout.spark.prepare;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.conf.options.TableFormat;
import io.fanout.store.InvalidInputException;
import io.fanout.store.StoreLayout;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the JSON graph description of {@code prepare --graph-spec FILE} into a {@link GraphSpec}
 * and refuses every mistake with one line naming the file, the type or relation, and the key:
 *
 * <pre>{@code
 * {
 *   "format": "parquet",
 *   "types": [
 *     {"name": "paper", "path": "vertices/paper.parquet", "label_column": "label"},
 *     {"name": "term", "path": "vertices/term.parquet"}
 *   ],
 *   "relations": [
 *     {"name": "paper_term", "src_type": "paper", "dst_type": "term",
 *      "path": "edges/paper_term.parquet"},
 *     {"name": "term_paper", "src_type": "term", "dst_type": "paper",
 *      "path": "edges/term_paper.parquet", "reverse_of": "paper_term"}
 *   ]
 * }
 * }</pre>
 *
 * Relative paths resolve against the folder of the file. Keys not listed here are refused.
 */
public final class GraphSpecParser {
  private GraphSpecParser() {}

  static final Set<String> TOP_KEYS = Set.of("format", "types", "relations");
  static final Set<String> TYPE_KEYS =
      Set.of(
          "name",
          "path",
          "format",
          "id_column",
          "features_column",
          "label_column",
          "labels_column",
          "split_column");
  static final Set<String> RELATION_KEYS =
      Set.of(
          "name",
          "src_type",
          "dst_type",
          "path",
          "format",
          "src_column",
          "dst_column",
          "reverse_of",
          "weight_column");

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  /** Reads and checks the description in {@code file}. */
  public static GraphSpec read(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new InvalidInputException(file + ": no such graph description (--graph-spec)");
    } catch (IOException e) {
      throw new InvalidInputException(file + ": cannot read the graph description: " + e, e);
    }
    Path base = file.toAbsolutePath().normalize().getParent();
    return parse(file.toString(), text, base);
  }

  /**
   * Parses {@code text}; {@code source} names it in errors, relative paths resolve against {@code
   * base}.
   */
  static GraphSpec parse(String source, String text, Path base) {
    JsonNode root;
    try {
      root = JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new InvalidInputException(
          source
              + ": not valid JSON: "
              + e.getOriginalMessage()
              + " (line "
              + e.getLocation().getLineNr()
              + ")");
    }
    if (root == null || !root.isObject()) {
      throw new InvalidInputException(
          source + ": expected a JSON object with \"types\" and \"relations\"");
    }
    Where top = new Where(source, "");
    top.onlyKeys(root, TOP_KEYS);
    TableFormat format = top.format(root);
    List<GraphSpec.TypeSpec> types = new ArrayList<>();
    for (JsonNode t : top.array(root, "types")) {
      types.add(type(source, t, types.size(), format, base, types));
    }
    List<GraphSpec.RelationSpec> relations = new ArrayList<>();
    for (JsonNode r : top.array(root, "relations")) {
      relations.add(relation(source, r, relations.size(), format, base, types, relations));
    }
    GraphSpec spec = new GraphSpec(types, relations);
    checkReverses(source, spec);
    return spec;
  }

  private static GraphSpec.TypeSpec type(
      String source,
      JsonNode node,
      int index,
      TableFormat format,
      Path base,
      List<GraphSpec.TypeSpec> earlier) {
    Where w = new Where(source, "types[" + index + "]");
    w.object(node);
    String name = w.name(node);
    w = new Where(source, "type '" + name + "'");
    for (GraphSpec.TypeSpec t : earlier) {
      if (t.name().equals(name)) {
        throw w.error("the type is named twice; expected unique type names");
      }
    }
    w.onlyKeys(node, TYPE_KEYS);
    String label = w.optional(node, "label_column");
    String labels = w.optional(node, "labels_column");
    if (label != null && labels != null) {
      throw w.error(
          "has both \"label_column\" (one class) and \"labels_column\" (a set of classes);"
              + " expected one of them");
    }
    TableFormat f = w.format(node);
    return new GraphSpec.TypeSpec(
        name,
        w.path(node, base),
        f != null ? f : format,
        w.optional(node, "id_column"),
        w.optional(node, "features_column"),
        label,
        labels,
        w.optional(node, "split_column"));
  }

  private static GraphSpec.RelationSpec relation(
      String source,
      JsonNode node,
      int index,
      TableFormat format,
      Path base,
      List<GraphSpec.TypeSpec> types,
      List<GraphSpec.RelationSpec> earlier) {
    Where w = new Where(source, "relations[" + index + "]");
    w.object(node);
    String name = w.name(node);
    w = new Where(source, "relation '" + name + "'");
    for (GraphSpec.RelationSpec r : earlier) {
      if (r.name().equals(name)) {
        throw w.error("the relation is named twice; expected unique relation names");
      }
    }
    w.onlyKeys(node, RELATION_KEYS);
    String src = w.required(node, "src_type");
    String dst = w.required(node, "dst_type");
    for (String t : new String[] {src, dst}) {
      boolean known = false;
      for (GraphSpec.TypeSpec ts : types) {
        known |= ts.name().equals(t);
      }
      if (!known) {
        List<String> names = new ArrayList<>();
        types.forEach(ts -> names.add(ts.name()));
        throw w.error(
            "key \""
                + (t.equals(src) ? "src_type" : "dst_type")
                + "\": unknown vertex type '"
                + t
                + "'; expected one of "
                + names);
      }
    }
    TableFormat f = w.format(node);
    return new GraphSpec.RelationSpec(
        name,
        src,
        dst,
        w.path(node, base),
        f != null ? f : format,
        w.optional(node, "src_column"),
        w.optional(node, "dst_column"),
        w.optional(node, "reverse_of"),
        w.optional(node, "weight_column"));
  }

  /**
   * Checks a description built through the API ({@code prepare().vertices(type, df).edges(...)}) as
   * the parser checks a file: valid, unique names, relations between known types, and reverse
   * pairs; {@code source} names it in errors.
   */
  public static void check(String source, GraphSpec spec) {
    if (spec.types().isEmpty() || spec.relations().isEmpty()) {
      throw new InvalidInputException(
          source
              + ": a typed graph needs at least one vertex type (vertices(type, df)) and one"
              + " relation (edges(relation, srcType, dstType, df))");
    }
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (GraphSpec.TypeSpec t : spec.types()) {
      Where w = new Where(source, "type '" + t.name() + "'");
      if (!StoreLayout.validName(t.name())) {
        throw w.error("not a valid name; expected " + StoreLayout.NAME_RULE);
      }
      if (!seen.add(t.name())) {
        throw w.error("the type is named twice; expected unique type names");
      }
    }
    seen.clear();
    for (GraphSpec.RelationSpec r : spec.relations()) {
      Where w = new Where(source, "relation '" + r.name() + "'");
      if (!StoreLayout.validName(r.name())) {
        throw w.error("not a valid name; expected " + StoreLayout.NAME_RULE);
      }
      if (!seen.add(r.name())) {
        throw w.error("the relation is named twice; expected unique relation names");
      }
      for (String t : new String[] {r.srcType(), r.dstType()}) {
        if (spec.typeIndex(t) < 0) {
          throw w.error("unknown vertex type '" + t + "'; give its vertices(\"" + t + "\", df)");
        }
      }
    }
    checkReverses(source, spec);
  }

  /**
   * A relation declared {@code reverse_of} another must name an existing other relation with the
   * types swapped, and a pair may not name a third relation.
   */
  private static void checkReverses(String source, GraphSpec spec) {
    for (GraphSpec.RelationSpec r : spec.relations()) {
      if (r.reverseOf() == null) {
        continue;
      }
      Where w = new Where(source, "relation '" + r.name() + "'");
      int o = spec.relationIndex(r.reverseOf());
      if (o < 0) {
        throw w.error(
            "key \"reverse_of\": unknown relation '"
                + r.reverseOf()
                + "'; expected a relation name");
      }
      GraphSpec.RelationSpec other = spec.relations().get(o);
      if (other.name().equals(r.name())) {
        throw w.error(
            "key \"reverse_of\" names the relation itself; expected another relation (from '"
                + r.dstType()
                + "' to '"
                + r.srcType()
                + "')");
      }
      if (!other.srcType().equals(r.dstType()) || !other.dstType().equals(r.srcType())) {
        throw w.error(
            "key \"reverse_of\": relation '"
                + other.name()
                + "' runs from '"
                + other.srcType()
                + "' to '"
                + other.dstType()
                + "'; expected a relation from '"
                + r.dstType()
                + "' to '"
                + r.srcType()
                + "'");
      }
      if (other.reverseOf() != null && !other.reverseOf().equals(r.name())) {
        throw w.error(
            "key \"reverse_of\": relation '"
                + other.name()
                + "' is declared the reverse of '"
                + other.reverseOf()
                + "'; expected a pair that names each other");
      }
    }
  }

  /** Where in the file a value is, for errors: {@code FILE: type 'paper': ...}. */
  private record Where(String source, String at) {
    InvalidInputException error(String what) {
      return new InvalidInputException(source + ": " + (at.isEmpty() ? "" : at + ": ") + what);
    }

    void object(JsonNode node) {
      if (!node.isObject()) {
        throw error("expected a JSON object, got " + node.getNodeType().toString().toLowerCase());
      }
    }

    void onlyKeys(JsonNode node, Set<String> known) {
      Iterator<Map.Entry<String, JsonNode>> it = node.fields();
      while (it.hasNext()) {
        String key = it.next().getKey();
        if (!known.contains(key)) {
          throw error(
              "unknown key \"" + key + "\"; expected one of " + new java.util.TreeSet<>(known));
        }
      }
    }

    Iterable<JsonNode> array(JsonNode node, String key) {
      JsonNode a = node.get(key);
      if (a == null || !a.isArray() || a.isEmpty()) {
        throw error(
            "key \""
                + key
                + "\": "
                + (a == null ? "missing" : a.isArray() ? "empty" : "not an array")
                + "; expected an array of at least one "
                + (key.equals("types") ? "vertex type" : "relation"));
      }
      return a;
    }

    String name(JsonNode node) {
      String name = required(node, "name");
      if (!StoreLayout.validName(name)) {
        throw error(
            "key \"name\": '" + name + "' is not a valid name; expected " + StoreLayout.NAME_RULE);
      }
      return name;
    }

    String required(JsonNode node, String key) {
      String v = optional(node, key);
      if (v == null) {
        throw error("key \"" + key + "\" is missing; expected a string");
      }
      return v;
    }

    /** The non-empty string at {@code key}, or null when the key is absent. */
    String optional(JsonNode node, String key) {
      JsonNode v = node.get(key);
      if (v == null) {
        return null;
      }
      if (!v.isTextual() || v.asText().isBlank()) {
        throw error("key \"" + key + "\": expected a non-empty string, got " + v);
      }
      return v.asText();
    }

    String path(JsonNode node, Path base) {
      String p = required(node, "path");
      if (p.contains("://") || p.startsWith("file:")) {
        return p;
      }
      return base.resolve(p).normalize().toString();
    }

    TableFormat format(JsonNode node) {
      String f = optional(node, "format");
      if (f == null) {
        return null;
      }
      try {
        return TableFormat.parse(f);
      } catch (IllegalArgumentException e) {
        throw error("key \"format\": '" + f + "': " + e.getMessage());
      }
    }
  }
}
