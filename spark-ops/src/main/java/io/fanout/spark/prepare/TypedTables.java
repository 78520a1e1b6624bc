package io.fanout.spark.prepare;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.OptionDef;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.conf.options.TableFormat;
import io.fanout.store.Checksums;
import io.fanout.store.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * The tables of a typed graph, from a {@link GraphSpec} (paths) or from DataFrames, with each
 * type's and relation's columns resolved (the spec's, else the {@code prepare} options'; optional
 * columns left at their default name are used when the table has them), how errors name them, and
 * the fingerprint of all inputs.
 */
public final class TypedTables {
  /**
   * One vertex type's table.
   *
   * @param featuresColumn null when the type has no features; likewise the label, labels and split
   *     columns
   */
  record TypeTable(
      String name,
      Dataset<Row> table,
      String source,
      boolean csv,
      String path,
      String idColumn,
      String featuresColumn,
      String labelColumn,
      String labelsColumn,
      String splitColumn) {}

  /**
   * One relation's edge table.
   *
   * @param reverseOf the relation it is declared (or added as) the flip of, or null
   * @param added whether {@code --add-reverse} added it (its table is its original's)
   * @param weightColumn the column of its edge weights, or null: unweighted
   */
  record RelationTable(
      String name,
      String srcType,
      String dstType,
      Dataset<Row> table,
      String source,
      boolean csv,
      String path,
      String srcColumn,
      String dstColumn,
      String reverseOf,
      boolean added,
      String weightColumn) {

    /**
     * The flip of this relation, named {@code name}: the same table, endpoints swapped, each edge
     * with its weight.
     */
    RelationTable reversed(String name) {
      return new RelationTable(
          name,
          dstType,
          srcType,
          table,
          "relation '" + name + "' (the reverse of '" + this.name + "', " + source + ")",
          csv,
          path,
          dstColumn,
          srcColumn,
          this.name,
          true,
          weightColumn);
    }
  }

  final List<TypeTable> types;
  final List<RelationTable> relations;
  final String fingerprint;

  private TypedTables(List<TypeTable> types, List<RelationTable> relations, String fingerprint) {
    this.types = List.copyOf(types);
    this.relations = List.copyOf(relations);
    this.fingerprint = fingerprint;
  }

  /** The tables {@code spec} names, read by {@code spark} (schemas only). */
  static TypedTables fromSpec(SparkSession spark, FanoutConf conf, GraphSpec spec) {
    Configuration hadoop = spark.sessionState().newHadoopConf();
    StringBuilder digest = new StringBuilder("typed graph spec\n");
    List<TypeTable> types = new ArrayList<>();
    for (GraphSpec.TypeSpec t : spec.types()) {
      boolean csv = format(conf, t.format()) == TableFormat.CSV;
      String what = "type '" + t.name() + "'";
      digest.append(what).append(csv ? " csv\n" : " parquet\n");
      digest.append(InputFiles.check(hadoop, t.path(), what, csv).digest);
      Dataset<Row> table = InputTables.read(spark, t.path(), csv);
      types.add(type(conf, t, table, what + " (vertices " + t.path() + ")", csv, t.path()));
    }
    List<RelationTable> relations = new ArrayList<>();
    for (GraphSpec.RelationSpec r : spec.relations()) {
      boolean csv = format(conf, r.format()) == TableFormat.CSV;
      String what = "relation '" + r.name() + "'";
      digest.append(what).append(csv ? " csv\n" : " parquet\n");
      digest.append(InputFiles.check(hadoop, r.path(), what, csv).digest);
      Dataset<Row> table = InputTables.read(spark, r.path(), csv);
      relations.add(relation(conf, r, table, what + " (edges " + r.path() + ")", csv, r.path()));
    }
    requireUsed(conf, types);
    requireWeightsUsed(conf, relations);
    return new TypedTables(types, relations, fingerprint(digest, types, relations));
  }

  /**
   * DataFrames given through the API: {@code spec} names types and relations (no paths), {@code
   * frames} holds each one's table by name ({@code type:NAME}, {@code relation:NAME}).
   */
  static TypedTables fromFrames(
      SparkSession spark, FanoutConf conf, GraphSpec spec, Map<String, Dataset<Row>> frames) {
    StringBuilder digest = new StringBuilder("typed graph dataframes\n");
    List<TypeTable> types = new ArrayList<>();
    for (GraphSpec.TypeSpec t : spec.types()) {
      Dataset<Row> table = frames.get("type:" + t.name());
      digest.append("type '").append(t.name()).append("' ").append(frameDigest(spark, table));
      types.add(type(conf, t, table, "type '" + t.name() + "' (DataFrame)", false, null));
    }
    List<RelationTable> relations = new ArrayList<>();
    for (GraphSpec.RelationSpec r : spec.relations()) {
      Dataset<Row> table = frames.get("relation:" + r.name());
      digest.append("relation '").append(r.name()).append("' ").append(frameDigest(spark, table));
      relations.add(
          relation(conf, r, table, "relation '" + r.name() + "' (DataFrame)", false, null));
    }
    requireUsed(conf, types);
    requireWeightsUsed(conf, relations);
    return new TypedTables(types, relations, fingerprint(digest, types, relations));
  }

  /** These tables with the relations {@code relations} instead (reverses added). */
  TypedTables withRelations(List<RelationTable> relations) {
    return new TypedTables(types, relations, fingerprint);
  }

  /** The type named {@code name}. */
  TypeTable type(String name) {
    for (TypeTable t : types) {
      if (t.name().equals(name)) {
        return t;
      }
    }
    throw new IllegalArgumentException("unknown type " + name);
  }

  private static String frameDigest(SparkSession spark, Dataset<Row> table) {
    return table.semanticHash() + "\n" + InputTables.filesDigest(spark, table.inputFiles());
  }

  /** SHA-256 of the inputs' {@code digest} and every type's and relation's resolved columns. */
  private static String fingerprint(
      StringBuilder digest, List<TypeTable> types, List<RelationTable> relations) {
    for (TypeTable t : types) {
      digest.append(
          String.join(
              "\t",
              "type",
              t.name(),
              t.idColumn(),
              String.valueOf(t.featuresColumn()),
              String.valueOf(t.labelColumn()),
              String.valueOf(t.labelsColumn()),
              String.valueOf(t.splitColumn())));
      digest.append('\n');
    }
    for (RelationTable r : relations) {
      digest.append(
          String.join(
              "\t",
              "relation",
              r.name(),
              r.srcType(),
              r.dstType(),
              r.srcColumn(),
              r.dstColumn(),
              String.valueOf(r.reverseOf())));
      if (r.weightColumn() != null) { // absent unweighted, so such graphs keep their fingerprint
        digest.append("\tweight\t").append(r.weightColumn());
      }
      digest.append('\n');
    }
    return Checksums.sha256(digest.toString());
  }

  private static TableFormat format(FanoutConf conf, TableFormat given) {
    return given != null ? given : conf.get(PrepareOptions.FORMAT);
  }

  private static TypeTable type(
      FanoutConf conf,
      GraphSpec.TypeSpec t,
      Dataset<Row> table,
      String source,
      boolean csv,
      String path) {
    List<String> columns = CsvTables.columns(table);
    String id = t.idColumn() != null ? t.idColumn() : conf.get(PrepareOptions.ID_COLUMN);
    require(columns, source, id, "id_column", PrepareOptions.ID_COLUMN);
    String labels = column(columns, source, t.labelsColumn(), conf, PrepareOptions.LABELS_COLUMN);
    String label =
        labels != null && t.labelColumn() == null && !conf.given(PrepareOptions.LABEL_COLUMN)
            ? null // a multi-label type leaves a column named like the default label alone
            : column(columns, source, t.labelColumn(), conf, PrepareOptions.LABEL_COLUMN);
    if (label != null && labels != null) {
      throw new InvalidInputException(
          source
              + ": both a label column ('"
              + label
              + "') and a labels column ('"
              + labels
              + "') are given; expected one: one class or a set of classes per vertex");
    }
    return new TypeTable(
        t.name(),
        table,
        source,
        csv,
        path,
        id,
        column(columns, source, t.featuresColumn(), conf, PrepareOptions.FEATURES_COLUMN),
        label,
        labels,
        column(columns, source, t.splitColumn(), conf, PrepareOptions.SPLIT_COLUMN));
  }

  private static RelationTable relation(
      FanoutConf conf,
      GraphSpec.RelationSpec r,
      Dataset<Row> table,
      String source,
      boolean csv,
      String path) {
    List<String> columns = CsvTables.columns(table);
    String src = r.srcColumn() != null ? r.srcColumn() : conf.get(PrepareOptions.SRC_COLUMN);
    String dst = r.dstColumn() != null ? r.dstColumn() : conf.get(PrepareOptions.DST_COLUMN);
    require(columns, source, src, "src_column", PrepareOptions.SRC_COLUMN);
    require(columns, source, dst, "dst_column", PrepareOptions.DST_COLUMN);
    String weight = column(columns, source, r.weightColumn(), conf, PrepareOptions.WEIGHT_COLUMN);
    return new RelationTable(
        r.name(),
        r.srcType(),
        r.dstType(),
        table,
        source,
        csv,
        path,
        src,
        dst,
        r.reverseOf(),
        false,
        weight);
  }

  /**
   * The optional column: {@code given} by the spec (must exist), else the option's value, used by
   * the types whose table has it ({@link #requireUsed} refuses one that no type has); null for
   * none.
   */
  private static String column(
      List<String> columns, String source, String given, FanoutConf conf, OptionDef<String> def) {
    String name = given != null ? given : conf.get(def);
    if (name.isEmpty()) {
      return null;
    }
    if (columns.contains(name)) {
      return name;
    }
    if (given == null) {
      return null;
    }
    require(columns, source, name, def.name().replace('-', '_'), def);
    return null;
  }

  /**
   * Refuses an optional column option given with a value other than its default that no type's
   * table has (a typo would otherwise be dropped silently): for typed graphs the options name the
   * columns of every type that has them.
   */
  private static void requireUsed(FanoutConf conf, List<TypeTable> types) {
    List<OptionDef<String>> defs =
        List.of(
            PrepareOptions.FEATURES_COLUMN,
            PrepareOptions.LABEL_COLUMN,
            PrepareOptions.LABELS_COLUMN,
            PrepareOptions.SPLIT_COLUMN);
    for (OptionDef<String> d : defs) {
      String name = conf.get(d);
      if (name.isEmpty() || name.equals(d.defaultValue())) {
        continue;
      }
      boolean used = false;
      for (TypeTable t : types) {
        used |=
            name.equals(t.featuresColumn())
                || name.equals(t.labelColumn())
                || name.equals(t.labelsColumn())
                || name.equals(t.splitColumn());
      }
      if (!used) {
        List<String> names = new ArrayList<>();
        types.forEach(t -> names.add(t.name()));
        throw new InvalidInputException(
            "--"
                + d.name()
                + " "
                + name
                + ": no vertex type's table has column '"
                + name
                + "' (types "
                + names
                + "); expected the column in at least one type's table");
      }
    }
  }

  /**
   * Refuses a {@code --weight-column} that no relation's table has (a typo would otherwise leave
   * every relation unweighted silently).
   */
  private static void requireWeightsUsed(FanoutConf conf, List<RelationTable> relations) {
    String name = conf.get(PrepareOptions.WEIGHT_COLUMN);
    if (name.isEmpty()) {
      return;
    }
    List<String> names = new ArrayList<>();
    for (RelationTable r : relations) {
      if (name.equals(r.weightColumn())) {
        return;
      }
      names.add(r.name());
    }
    throw new InvalidInputException(
        "--"
            + PrepareOptions.WEIGHT_COLUMN.name()
            + " "
            + name
            + ": no relation's table has column '"
            + name
            + "' (relations "
            + names
            + "); expected the column in at least one relation's table");
  }

  private static void require(
      List<String> columns, String source, String column, String key, OptionDef<?> option) {
    if (!columns.contains(column)) {
      throw new InvalidInputException(
          source
              + ": missing column '"
              + column
              + "' (spec key \""
              + key
              + "\" or --"
              + option.name()
              + "); the table has columns "
              + columns);
    }
  }
}
