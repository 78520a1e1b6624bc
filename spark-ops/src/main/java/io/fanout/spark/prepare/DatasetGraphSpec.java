package io.fanout.spark.prepare;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fanout.store.InvalidInputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@link GraphSpec} of a heterogeneous dataset folder that describes itself in a {@code
 * schema.json} ({@code node_types} with {@code name} and {@code file}; {@code relations} with
 * {@code name}, {@code src_type}, {@code dst_type}, {@code file} and {@code reverse_of}; {@code
 * target_type}, {@code label_column} and {@code task}, {@code single-label} or {@code
 * multi-label}), as the benchmark datasets of {@code hgb_acm} do: what {@code quickstart --dataset}
 * prepares. Other keys of the file are left alone; columns not named take the options' defaults.
 */
public final class DatasetGraphSpec {
  /** The file a dataset folder describes itself in. */
  public static final String SCHEMA = "schema.json";

  private DatasetGraphSpec() {}

  /** Whether {@code dir} holds a typed dataset's {@link #SCHEMA} with node types. */
  public static boolean isTyped(Path dir) {
    Path f = dir.resolve(SCHEMA);
    if (!Files.isRegularFile(f)) {
      return false;
    }
    try {
      return new ObjectMapper().readTree(f.toFile()).has("node_types");
    } catch (IOException e) {
      return false;
    }
  }

  /** The graph description of the dataset in {@code dir}. */
  public static GraphSpec of(Path dir) {
    Path file = dir.resolve(SCHEMA);
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(file.toFile());
    } catch (NoSuchFileException | java.io.FileNotFoundException e) {
      throw new InvalidInputException(file + ": missing; expected a dataset's " + SCHEMA);
    } catch (IOException e) {
      throw new InvalidInputException(file + ": not valid JSON: " + e.getMessage(), e);
    }
    String target = text(root, "target_type");
    String label = text(root, "label_column");
    boolean multi = "multi-label".equals(text(root, "task"));
    Path base = dir.toAbsolutePath().normalize();
    List<GraphSpec.TypeSpec> types = new ArrayList<>();
    for (JsonNode t : array(file, root, "node_types")) {
      String name = required(file, t, "name");
      boolean isTarget = name.equals(target) && label != null;
      types.add(
          new GraphSpec.TypeSpec(
              name,
              base.resolve(required(file, t, "file")).toString(),
              null,
              null,
              null,
              isTarget && !multi ? label : null,
              isTarget && multi ? label : null,
              null));
    }
    List<GraphSpec.RelationSpec> relations = new ArrayList<>();
    for (JsonNode r : array(file, root, "relations")) {
      relations.add(
          new GraphSpec.RelationSpec(
              required(file, r, "name"),
              required(file, r, "src_type"),
              required(file, r, "dst_type"),
              base.resolve(required(file, r, "file")).toString(),
              null,
              null,
              null,
              text(r, "reverse_of"),
              null));
    }
    GraphSpec spec = new GraphSpec(types, relations);
    GraphSpecParser.check(file.toString(), spec);
    return spec;
  }

  private static Iterable<JsonNode> array(Path file, JsonNode root, String key) {
    JsonNode a = root.get(key);
    if (a == null || !a.isArray()) {
      throw new InvalidInputException(file + ": key \"" + key + "\": expected an array");
    }
    return a;
  }

  private static String required(Path file, JsonNode node, String key) {
    String v = text(node, key);
    if (v == null) {
      throw new InvalidInputException(
          file + ": key \"" + key + "\" is missing in " + node + "; expected a string");
    }
    return v;
  }

  private static String text(JsonNode node, String key) {
    JsonNode v = node.get(key);
    return v == null || !v.isTextual() || v.asText().isEmpty() ? null : v.asText();
  }
}
