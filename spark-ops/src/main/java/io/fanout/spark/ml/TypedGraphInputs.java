package io.fanout.spark.ml;

import io.fanout.nn.EmbeddingMode;
import io.fanout.spark.Fanout;
import io.fanout.spark.PrepareAction;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;

/**
 * The tables of a typed graph that a {@link TypedGnnClassifier} is given beside fit's DataFrame:
 * the other vertex types' tables and the relations, in the order they were set. They are not Params
 * and are not saved with the estimator; a copy shares them.
 */
final class TypedGraphInputs {
  /** One relation: its endpoint types and its edge table. */
  record Relation(String srcType, String dstType, Dataset<Row> edges) {}

  private final Map<String, Dataset<Row>> vertices = new LinkedHashMap<>();
  private final Map<String, Relation> relations = new LinkedHashMap<>();

  /** Sets (or replaces) the table of vertex type {@code type}. */
  void vertices(String type, Dataset<Row> table) {
    vertices.put(name(type, "type"), Objects.requireNonNull(table, "table"));
  }

  /** Sets (or replaces) relation {@code name} from {@code srcType} into {@code dstType}. */
  void relation(String name, String srcType, String dstType, Dataset<Row> edges) {
    relations.put(
        name(name, "name"),
        new Relation(
            name(srcType, "srcType"),
            name(dstType, "dstType"),
            Objects.requireNonNull(edges, "edges")));
  }

  Map<String, Dataset<Row>> vertices() {
    return vertices;
  }

  Map<String, Relation> relations() {
    return relations;
  }

  /** A copy holding the same tables. */
  TypedGraphInputs copy() {
    TypedGraphInputs c = new TypedGraphInputs();
    c.vertices.putAll(vertices);
    c.relations.putAll(relations);
    return c;
  }

  /**
   * Refuses a fit that cannot prepare or train: no relation, the target type also given by {@code
   * setVertices}, a relation's endpoint type without a table, a table without the columns the
   * Params name, or a table without features (the target's, {@code targetSchema}, included) when
   * {@code learnedEmbeddings} is {@code off}.
   */
  void check(TypedGnnParams p, StructType targetSchema) {
    String who = p.getClass().getSimpleName();
    String target = p.getTargetType();
    if (relations.isEmpty()) {
      throw new IllegalArgumentException(
          who
              + " has no relations: call setRelation(name, srcType, dstType, edgesDataFrame) before"
              + " fit (relations are not saved with the estimator)");
    }
    if (vertices.containsKey(target)) {
      throw new IllegalArgumentException(
          who
              + " param targetType is '"
              + target
              + "', which setVertices was given too; the target type's vertices are fit's"
              + " DataFrame");
    }
    requireFeatures(p, target, targetSchema);
    for (Map.Entry<String, Dataset<Row>> t : vertices.entrySet()) {
      String table = "vertices of type '" + t.getKey() + "'";
      VertexColumns.checkId(t.getValue().schema(), p, table);
      VertexColumns.checkFeaturesIfPresent(t.getValue().schema(), p, table);
      requireFeatures(p, t.getKey(), t.getValue().schema());
    }
    for (Map.Entry<String, Relation> r : relations.entrySet()) {
      for (String type : new String[] {r.getValue().srcType(), r.getValue().dstType()}) {
        if (!type.equals(target) && !vertices.containsKey(type)) {
          throw new IllegalArgumentException(
              who
                  + " relation '"
                  + r.getKey()
                  + "' joins vertex type '"
                  + type
                  + "', which has no table: give it with setVertices(\""
                  + type
                  + "\", df), or set targetType to it; the types are "
                  + types(target));
        }
      }
      VertexColumns.checkEdges(r.getValue().edges().schema(), p, "relation '" + r.getKey() + "'");
    }
  }

  /**
   * The typed {@code prepare} of the graph: the target type's table {@code target} first, then the
   * other types and the relations in the order they were set, each reduced to the columns the
   * Params name.
   */
  PrepareAction prepare(Fanout fanout, Dataset<Row> target, TypedGnnParams p) {
    PrepareAction a = fanout.prepare().vertices(p.getTargetType(), target);
    vertices.forEach((type, t) -> a.vertices(type, VertexColumns.idAndFeaturesIfPresent(t, p)));
    relations.forEach(
        (name, r) ->
            a.edges(name, r.srcType(), r.dstType(), VertexColumns.endpoints(r.edges(), p)));
    return a;
  }

  /**
   * Refuses a type's table without {@code featuresCol} when {@code learnedEmbeddings} is {@code
   * off}, as {@code train} would after preparing and sampling.
   */
  private static void requireFeatures(TypedGnnParams p, String type, StructType schema) {
    if (EmbeddingMode.parse(p.getLearnedEmbeddings()) == EmbeddingMode.OFF
        && !VertexColumns.hasFeatures(schema, p)) {
      String who = p.getClass().getSimpleName();
      throw new IllegalArgumentException(
          who
              + " param learnedEmbeddings is 'off', and the vertices of type '"
              + type
              + "' DataFrame has no featuresCol column '"
              + p.getFeaturesCol()
              + "'; it has "
              + String.join(", ", schema.fieldNames())
              + " (a type without features trains a learned embedding per vertex with"
              + " learnedEmbeddings auto or all)");
    }
  }

  private String types(String target) {
    StringBuilder b = new StringBuilder("'").append(target).append("' (the target)");
    vertices.keySet().forEach(t -> b.append(", '").append(t).append("'"));
    return b.toString();
  }

  private static String name(String value, String what) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("expected a non-blank " + what + ", got '" + value + "'");
    }
    return value;
  }
}
