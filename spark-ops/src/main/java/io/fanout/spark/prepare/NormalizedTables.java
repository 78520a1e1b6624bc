package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.array_contains;
import static org.apache.spark.sql.functions.array_max;
import static org.apache.spark.sql.functions.array_min;
import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.trim;

import io.fanout.conf.FanoutConf;
import io.fanout.conf.options.PrepareOptions;
import io.fanout.store.InvalidInputException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * The input tables brought to one shape, with the checks that guard it.
 *
 * <p>Vertices: {@code _id} (long, int or string), {@code _label} int (-1 when absent or null),
 * {@code _split} byte (split code; null when not a known split), {@code _feat} array&lt;float&gt;
 * (only with features). Edges: {@code _src}, {@code _dst} of the vertex id type, and {@code _w}
 * float (only with {@code --weight-column}), {@code _es} int split code (only with {@code
 * --edge-split-column}).
 */
final class NormalizedTables {
  static final String ID = "_id";
  static final String LABEL = "_label";
  static final String SPLIT = "_split";
  static final String FEAT = "_feat";
  static final String SRC = "_src";
  static final String DST = "_dst";
  static final String WEIGHT = "_w";

  /** The largest label a store takes: at most 2^24 classes. */
  static final long MAX_LABEL = (1L << 24) - 1;

  final Dataset<Row> vertices;
  final Dataset<Row> edges;
  final boolean hasFeatures;

  /** Whether the edges carry {@link #WEIGHT} (float; {@code --weight-column}). */
  final boolean weighted;

  /**
   * The edge table's split column ({@code --edge-split-column}), whose code the edges carry as
   * {@link EdgeSplitColumn#CODE}; null when not given.
   */
  final String edgeSplitColumn;

  final DataType idType;

  /**
   * The raw edge table's endpoint columns when the edge checks are its null checks alone (the
   * endpoints already of the id type, no weight or split column): then Parquet footers that count
   * no null in them pass the checks without a scan ({@link InputStats#rowsWithoutNulls}); else
   * null.
   */
  final String[] nullCheckedEndpoints;

  /** The vertex table's normalization (its columns, checks and error samples). */
  final VertexNormalization vertexNormalization;

  final List<Check> vertexChecks;
  final List<Check> edgeChecks = new ArrayList<>();

  /** Columns of the raw vertex table shown in error samples (features left out). */
  final List<Column> vertexSample;

  final List<Column> edgeSample = new ArrayList<>();

  NormalizedTables(InputTables in, FanoutConf conf) {
    Dataset<Row> v = in.vertices;
    Dataset<Row> e = in.edges;
    String idCol = conf.get(PrepareOptions.ID_COLUMN);
    String srcCol = conf.get(PrepareOptions.SRC_COLUMN);
    String dstCol = conf.get(PrepareOptions.DST_COLUMN);
    String featCol = optionalColumn(v, in.vertexSource, conf, PrepareOptions.FEATURES_COLUMN);
    String labelCol = optionalColumn(v, in.vertexSource, conf, PrepareOptions.LABEL_COLUMN);
    String splitCol = optionalColumn(v, in.vertexSource, conf, PrepareOptions.SPLIT_COLUMN);
    requireColumn(v, in.vertexSource, idCol, PrepareOptions.ID_COLUMN.name());
    requireColumn(e, in.edgeSource, srcCol, PrepareOptions.SRC_COLUMN.name());
    requireColumn(e, in.edgeSource, dstCol, PrepareOptions.DST_COLUMN.name());

    for (String c : CsvTables.columns(e)) {
      edgeSample.add(col(quote(c)));
    }
    if (in.csv) {
      edgeSample.add(col("_metadata.file_name").as("_file"));
      // first, so that a misaligned row is reported as such, not as the bad value it shifts
      edgeChecks.add(CsvTables.fieldCountCheck(e, false));
    }

    VertexNormalization vn =
        new VertexNormalization(v, in.vertexSource, in.csv, idCol, featCol, labelCol, splitCol);
    vertexNormalization = vn;
    vertices = vn.vertices;
    idType = vn.idType;
    hasFeatures = vn.hasFeatures;
    vertexChecks = vn.checks;
    vertexSample = vn.sample;

    // edges: endpoints of the vertex id type
    Column rawSrc = col(quote(srcCol));
    Column rawDst = col(quote(dstCol));
    DataType st = type(e, srcCol);
    DataType dt = type(e, dstCol);
    Column src = convert(rawSrc, st, idType, in.csv);
    Column dst = convert(rawDst, dt, idType, in.csv);
    edgeChecks.add(new Check(srcCol, "a null source", "a non-null vertex id", rawSrc.isNull()));
    edgeChecks.add(
        new Check(dstCol, "a null destination", "a non-null vertex id", rawDst.isNull()));
    String idSql = idType.sql().toLowerCase(java.util.Locale.ROOT);
    edgeChecks.add(
        new Check(
            srcCol,
            "a source that is not a valid " + idSql + " id",
            "ids of the vertex id type " + idSql,
            rawSrc.isNotNull().and(src.isNull())));
    edgeChecks.add(
        new Check(
            dstCol,
            "a destination that is not a valid " + idSql + " id",
            "ids of the vertex id type " + idSql,
            rawDst.isNotNull().and(dst.isNull())));
    Dataset<Row> ne = e.withColumn(SRC, src).withColumn(DST, dst);
    String weightCol = conf.get(PrepareOptions.WEIGHT_COLUMN);
    weighted = !weightCol.isEmpty();
    if (weighted) {
      requireColumn(e, in.edgeSource, weightCol, PrepareOptions.WEIGHT_COLUMN.name());
      ne = ne.withColumn(WEIGHT, weight(e, in.edgeSource, in.csv, weightCol, edgeChecks));
    }
    String esCol = conf.get(PrepareOptions.EDGE_SPLIT_COLUMN);
    edgeSplitColumn = esCol.isEmpty() ? null : esCol;
    if (edgeSplitColumn != null) {
      requireColumn(e, in.edgeSource, esCol, PrepareOptions.EDGE_SPLIT_COLUMN.name());
      Column raw = col(quote(esCol));
      EdgeSplitColumn.addChecks(edgeChecks, esCol, raw);
      ne = ne.withColumn(EdgeSplitColumn.CODE, EdgeSplitColumn.code(raw));
    }
    edges = ne;
    nullCheckedEndpoints =
        st.equals(idType) && dt.equals(idType) && !weighted && edgeSplitColumn == null
            ? new String[] {srcCol, dstCol}
            : null;
  }

  /**
   * The weight column {@code weightCol} of edge table {@code e} (named {@code source} in errors) as
   * float, adding to {@code checks} the checks that refuse null, non-numeric, NaN, infinite and
   * negative weights.
   */
  static Column weight(
      Dataset<Row> e, String source, boolean csv, String weightCol, List<Check> checks) {
    Column raw = col(quote(weightCol));
    DataType wt = type(e, weightCol);
    Column w;
    if (csv || wt.equals(DataTypes.StringType)) {
      w = trim(raw.cast("string")).try_cast("float");
      checks.add(
          new Check(
              weightCol,
              "a non-numeric weight",
              "a number >= 0 as edge weight",
              raw.isNotNull().and(w.isNull())));
    } else if (isNumeric(wt)) {
      w = raw.cast("float");
    } else {
      throw new InvalidInputException(
          source
              + ": column '"
              + weightCol
              + "' (--"
              + PrepareOptions.WEIGHT_COLUMN.name()
              + ") has type "
              + wt.sql()
              + "; expected a numeric edge weight column");
    }
    String expected = "finite edge weights >= 0 (0 = never sampled)";
    checks.add(new Check(weightCol, "a null weight", expected, raw.isNull()));
    checks.add(
        new Check(
            weightCol,
            "a NaN or infinite weight (or one beyond float32 range)",
            expected,
            org.apache
                .spark
                .sql
                .functions
                .isnan(w)
                .or(w.equalTo(lit(Float.POSITIVE_INFINITY)))
                .or(w.equalTo(lit(Float.NEGATIVE_INFINITY)))));
    checks.add(new Check(weightCol, "a negative weight", expected, w.lt(lit(0f))));
    return w;
  }

  /**
   * Whether a non-null float array holds a null, NaN or infinite element. Written without a lambda
   * ({@code exists(a, x -> ...)} is evaluated interpreted, boxing every element): {@code
   * array_contains} finds NaN (Spark's float equality treats NaN as equal to itself) and returns
   * null when it finds no NaN but meets a null element; the largest and smallest elements show the
   * infinities.
   */
  static Column nonFinite(Column a) {
    return a.isNotNull()
        .and(
            coalesce(array_contains(a, lit(Float.NaN)), lit(true))
                .or(coalesce(array_max(a).equalTo(lit(Float.POSITIVE_INFINITY)), lit(false)))
                .or(coalesce(array_min(a).equalTo(lit(Float.NEGATIVE_INFINITY)), lit(false))));
  }

  String idTypeName() {
    return idTypeName(idType);
  }

  /** {@code long}, {@code int} or {@code string}: an id type as manifests name it. */
  static String idTypeName(DataType idType) {
    if (idType.equals(DataTypes.LongType)) {
      return "long";
    }
    if (idType.equals(DataTypes.IntegerType)) {
      return "int";
    }
    return "string";
  }

  static Column convert(Column raw, DataType from, DataType to, boolean csv) {
    if (from.equals(to)) {
      return raw;
    }
    if (csv) {
      return trim(raw).try_cast(to);
    }
    return raw.try_cast(to);
  }

  static boolean isIntegral(DataType t) {
    return t.equals(DataTypes.IntegerType)
        || t.equals(DataTypes.LongType)
        || t.equals(DataTypes.ShortType)
        || t.equals(DataTypes.ByteType);
  }

  static boolean isNumeric(DataType t) {
    return isIntegral(t)
        || t.equals(DataTypes.FloatType)
        || t.equals(DataTypes.DoubleType)
        || t instanceof org.apache.spark.sql.types.DecimalType;
  }

  static DataType type(Dataset<Row> d, String column) {
    return d.schema().apply(column).dataType();
  }

  static String quote(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  static void requireColumn(Dataset<Row> d, String source, String column, String option) {
    if (!CsvTables.columns(d).contains(column)) {
      throw new InvalidInputException(
          source
              + ": missing column '"
              + column
              + "' (--"
              + option
              + "); the table has columns "
              + CsvTables.columns(d));
    }
  }

  /** The column named by {@code def}, or null when it is absent and left at its default. */
  private static String optionalColumn(
      Dataset<Row> d, String source, FanoutConf conf, io.fanout.conf.OptionDef<String> def) {
    String name = conf.get(def);
    if (Arrays.asList(d.columns()).contains(name)) {
      return name;
    }
    if (name.equals(def.defaultValue())) {
      return null;
    }
    requireColumn(d, source, name, def.name());
    return null;
  }
}
