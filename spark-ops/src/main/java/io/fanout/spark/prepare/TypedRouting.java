package io.fanout.spark.prepare;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.FanoutConfigException;
import io.fanout.conf.PerType;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.store.StoreFeatureEncoding;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * Which pipeline a graph given as types and relations takes: a graph of one vertex type and one
 * relation, without label sets, reverses to add or tables of two formats, is a one-table graph and
 * goes through the one-table {@link PrepareJob} unchanged (the same store, bit for bit, as {@code
 * prepare(vertices, edges)} or {@code --vertices/--edges} with the same columns); every other goes
 * through {@link TypedPrepareJob}.
 */
public final class TypedRouting {
  private TypedRouting() {}

  /**
   * The one-table form of a typed graph: the options to add (paths, format, columns, encoding) and
   * the DataFrames (null for paths).
   */
  public record OneTable(Map<String, String> options, Dataset<Row> vertices, Dataset<Row> edges) {}

  /**
   * The tables of the graph: those of {@code --graph-spec} when {@code api} is null, else the
   * DataFrames {@code frames} of the types and relations {@code api} names ({@code type:NAME},
   * {@code relation:NAME}). A {@code --graph-spec} naming a folder takes the description of the
   * dataset there ({@link DatasetGraphSpec}).
   */
  public static TypedTables tables(
      SparkSession spark, FanoutConf conf, GraphSpec api, Map<String, Dataset<Row>> frames) {
    if (api != null) {
      if (!conf.get(PrepareOptions.GRAPH_SPEC).isEmpty()) {
        throw new FanoutConfigException(
            "--graph-spec names the tables of a typed graph, and so do vertices(type, df) and"
                + " edges(...); give one or the other");
      }
      GraphSpecParser.check("prepare()", api);
      return TypedTables.fromFrames(spark, conf, api, frames);
    }
    Path given = Path.of(conf.get(PrepareOptions.GRAPH_SPEC));
    GraphSpec spec =
        java.nio.file.Files.isDirectory(given)
            ? DatasetGraphSpec.of(given)
            : GraphSpecParser.read(given);
    return TypedTables.fromSpec(spark, conf, spec);
  }

  /** The one-table form of {@code t}, or null when it needs the typed pipeline. */
  public static OneTable oneTable(TypedTables t, FanoutConf conf) {
    if (t.types.size() != 1 || t.relations.size() != 1) {
      return null;
    }
    TypedTables.TypeTable v = t.types.get(0);
    TypedTables.RelationTable e = t.relations.get(0);
    if (v.labelsColumn() != null || conf.get(PrepareOptions.ADD_REVERSE) || v.csv() != e.csv()) {
      return null;
    }
    Map<String, String> o = new LinkedHashMap<>();
    if (v.path() != null) {
      o.put(PrepareOptions.VERTICES.name(), v.path());
      o.put(PrepareOptions.EDGES.name(), e.path());
      o.put(PrepareOptions.FORMAT.name(), v.csv() ? "csv" : "parquet");
    }
    o.put(PrepareOptions.GRAPH_SPEC.name(), "");
    o.put(PrepareOptions.ID_COLUMN.name(), v.idColumn());
    o.put(PrepareOptions.SRC_COLUMN.name(), e.srcColumn());
    o.put(PrepareOptions.DST_COLUMN.name(), e.dstColumn());
    putIfSet(o, PrepareOptions.FEATURES_COLUMN.name(), v.featuresColumn());
    putIfSet(o, PrepareOptions.LABEL_COLUMN.name(), v.labelColumn());
    putIfSet(o, PrepareOptions.SPLIT_COLUMN.name(), v.splitColumn());
    putIfSet(o, PrepareOptions.WEIGHT_COLUMN.name(), e.weightColumn());
    PerType<StoreFeatureEncoding> enc =
        TypedOptionChecks.encodings(conf, java.util.List.of(v.name()));
    if (enc.namesTypes()) {
      o.put(PrepareOptions.FEATURE_ENCODING.name(), enc.of(v.name()).id());
    }
    return new OneTable(
        o, v.path() == null ? v.table() : null, e.path() == null ? e.table() : null);
  }

  private static void putIfSet(Map<String, String> o, String option, String column) {
    if (column != null) {
      o.put(option, column);
    }
  }
}
