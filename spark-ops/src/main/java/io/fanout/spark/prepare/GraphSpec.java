package io.fanout.spark.prepare;

import io.fanout.conf.options.TableFormat;
import java.util.List;

/**
 * A typed graph as {@code prepare --graph-spec FILE} describes it ({@link GraphSpecParser}): vertex
 * types and relations, each with its table and columns. A column left null takes the value of the
 * matching {@code prepare} option ({@code --id-column}, {@code --features-column}, ...), and the
 * optional ones are then used when the table has them, as for a one-table graph.
 *
 * @param types vertex types, in the order of their dense-id ranges
 * @param relations relations, in store order
 */
public record GraphSpec(List<TypeSpec> types, List<RelationSpec> relations) {
  public GraphSpec {
    types = List.copyOf(types);
    relations = List.copyOf(relations);
  }

  /**
   * One vertex type and its table.
   *
   * @param path absolute path of its table (a file or folder)
   * @param format null: the {@code --format} option
   * @param labelsColumn a column of integer arrays (multi-label targets), or null
   */
  public record TypeSpec(
      String name,
      String path,
      TableFormat format,
      String idColumn,
      String featuresColumn,
      String labelColumn,
      String labelsColumn,
      String splitColumn) {}

  /**
   * One relation and its edge table.
   *
   * @param reverseOf the relation this one is the flip of, declared by the user, or null
   * @param weightColumn the edge weight column, or null: the {@code --weight-column} option's
   *     column when the table has it, else no weights
   */
  public record RelationSpec(
      String name,
      String srcType,
      String dstType,
      String path,
      TableFormat format,
      String srcColumn,
      String dstColumn,
      String reverseOf,
      String weightColumn) {

    /** This relation declared the flip of {@code relation}. */
    public RelationSpec withReverseOf(String relation) {
      return new RelationSpec(
          name, srcType, dstType, path, format, srcColumn, dstColumn, relation, weightColumn);
    }

    /** This relation with its edge weights in column {@code column}. */
    public RelationSpec withWeightColumn(String column) {
      return new RelationSpec(
          name, srcType, dstType, path, format, srcColumn, dstColumn, reverseOf, column);
    }
  }

  /** The index of type {@code name}, or -1. */
  public int typeIndex(String name) {
    for (int t = 0; t < types.size(); t++) {
      if (types.get(t).name().equals(name)) {
        return t;
      }
    }
    return -1;
  }

  /** The index of relation {@code name}, or -1. */
  public int relationIndex(String name) {
    for (int r = 0; r < relations.size(); r++) {
      if (relations.get(r).name().equals(name)) {
        return r;
      }
    }
    return -1;
  }
}
