package io.fanout.spark.prepare;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.expr;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.lower;
import static org.apache.spark.sql.functions.regexp_replace;
import static org.apache.spark.sql.functions.split;
import static org.apache.spark.sql.functions.trim;
import static org.apache.spark.sql.functions.when;

import io.fanout.store.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;

/**
 * One vertex table brought to the shape of {@link NormalizedTables}: {@code _id} (long, int or
 * string), {@code _label} int (-1 when absent or null), {@code _split} byte, {@code _feat}
 * array&lt;float&gt; (only with features), with the checks that guard it and the columns shown in
 * error samples. The vertex table of a one-table graph and each vertex type of a typed graph are
 * normalized by it.
 */
final class VertexNormalization {
  final Dataset<Row> vertices;

  /** The table as given, before normalization (the same rows). */
  private final Dataset<Row> raw;

  final DataType idType;
  final boolean hasFeatures;

  /** The features column, or null. */
  final String featuresColumn;

  final List<Check> checks = new ArrayList<>();

  /** Columns of the raw table shown in error samples (features left out). */
  final List<Column> sample = new ArrayList<>();

  /** The normalization of vertex type {@code t} of a typed graph. */
  static VertexNormalization of(TypedTables.TypeTable t) {
    return new VertexNormalization(
        t.table(),
        t.source(),
        t.csv(),
        t.idColumn(),
        t.featuresColumn(),
        t.labelColumn(),
        t.splitColumn());
  }

  /**
   * @param source how errors name the table
   * @param csv whether the table was read from CSV (every column text)
   * @param featCol the features column, or null for none; likewise {@code labelCol}, {@code
   *     splitCol}
   */
  VertexNormalization(
      Dataset<Row> v,
      String source,
      boolean csv,
      String idCol,
      String featCol,
      String labelCol,
      String splitCol) {
    this.featuresColumn = featCol;
    this.raw = v;
    for (String c : CsvTables.columns(v)) {
      if (!c.equals(featCol)) {
        sample.add(col(NormalizedTables.quote(c)));
      }
    }
    if (csv) {
      sample.add(col("_metadata.file_name").as("_file"));
      // first, so that a misaligned row is reported as such, not as the bad value it shifts
      checks.add(CsvTables.fieldCountCheck(v, featCol != null));
    }

    // ids
    DataType rawIdType = NormalizedTables.type(v, idCol);
    Column rawId = col(NormalizedTables.quote(idCol));
    Column id;
    if (csv) {
      idType = DataTypes.LongType;
      id = rawId.try_cast("bigint");
    } else if (rawIdType.equals(DataTypes.LongType)
        || rawIdType.equals(DataTypes.IntegerType)
        || rawIdType.equals(DataTypes.StringType)) {
      idType = rawIdType;
      id = rawId;
    } else if (rawIdType.equals(DataTypes.ShortType) || rawIdType.equals(DataTypes.ByteType)) {
      idType = DataTypes.IntegerType;
      id = rawId.cast("int");
    } else {
      throw new InvalidInputException(
          source
              + ": column '"
              + idCol
              + "' has type "
              + rawIdType.sql()
              + "; expected vertex ids of type bigint, int or string");
    }
    checks.add(new Check(idCol, "a null id", "a non-null vertex id", rawId.isNull()));
    if (csv) {
      checks.add(
          new Check(
              idCol,
              "a non-numeric id",
              "an integer id in CSV input",
              rawId.isNotNull().and(id.isNull())));
    }

    // labels
    Column label;
    if (labelCol == null) {
      label = lit(-1);
    } else {
      Column raw = col(NormalizedTables.quote(labelCol));
      DataType lt = NormalizedTables.type(v, labelCol);
      Column wide;
      if (csv || lt.equals(DataTypes.StringType)) {
        wide = trim(raw).try_cast("bigint");
        checks.add(
            new Check(
                labelCol,
                "a non-integer label",
                "an integer label (-1 = unlabeled)",
                raw.isNotNull().and(trim(raw).notEqual(lit(""))).and(wide.isNull())));
      } else if (NormalizedTables.isIntegral(lt)) {
        wide = raw.cast("bigint");
      } else {
        throw new InvalidInputException(
            source
                + ": column '"
                + labelCol
                + "' has type "
                + lt.sql()
                + "; expected an integer label column");
      }
      checks.add(
          new Check(labelCol, "a label below -1", "labels >= -1 (-1 = unlabeled)", wide.lt(-1)));
      checks.add(
          new Check(
              labelCol,
              "a label above " + NormalizedTables.MAX_LABEL,
              "labels from -1 to "
                  + NormalizedTables.MAX_LABEL
                  + " (at most 2^24 classes; -1 = unlabeled)",
              wide.gt(NormalizedTables.MAX_LABEL)));
      // out-of-range labels are refused by the checks above; -1 keeps the cast from overflowing
      label =
          when(wide.between(-1L, NormalizedTables.MAX_LABEL), wide.cast("int")).otherwise(lit(-1));
    }

    // splits
    Column splitCode;
    if (splitCol == null) {
      splitCode = lit((byte) 0);
    } else {
      if (!csv && !NormalizedTables.type(v, splitCol).equals(DataTypes.StringType)) {
        throw new InvalidInputException(
            source
                + ": column '"
                + splitCol
                + "' has type "
                + NormalizedTables.type(v, splitCol).sql()
                + "; expected a string column of train, val, test or none");
      }
      Column raw = col(NormalizedTables.quote(splitCol));
      // lower() goes through Unicode case tables per row: only values not already canonical
      Column s =
          when(raw.isin("train", "val", "test", "none", ""), raw)
              .otherwise(coalesce(lower(trim(raw)), lit("none")));
      splitCode =
          when(s.equalTo("none").or(s.equalTo("")), lit((byte) 0))
              .when(s.equalTo("train"), lit((byte) 1))
              .when(s.equalTo("val"), lit((byte) 2))
              .when(s.equalTo("test"), lit((byte) 3));
      checks.add(
          new Check(
              splitCol,
              "an unknown split",
              "one of train, val, test, none (or null for none)",
              splitCode.isNull()));
    }

    // features
    Column feat = null;
    if (featCol != null) {
      DataType ft = NormalizedTables.type(v, featCol);
      Column raw = col(NormalizedTables.quote(featCol));
      if (ft instanceof VectorUDT
          || ft.getClass().getName().equals("org.apache.spark.mllib.linalg.VectorUDT")) {
        feat = org.apache.spark.ml.functions.vector_to_array(raw, "float32");
      } else if (ft instanceof ArrayType
          && NormalizedTables.isNumeric(((ArrayType) ft).elementType())) {
        feat = raw.cast("array<float>");
      } else if (csv && ft.equals(DataTypes.StringType)) {
        // CSV: "[0.1, 0.2]" or "0.1;0.2" or "0.1 0.2"
        Column body = trim(regexp_replace(raw, "[\\[\\]]", ""));
        Column parts = split(body, "[\\s,;]+");
        Column parsed = expr("transform(" + "_feat_parts" + ", x -> try_cast(x AS FLOAT))");
        v = v.withColumn("_feat_parts", when(body.equalTo(""), expr("array()")).otherwise(parts));
        feat = when(raw.isNull(), lit(null).cast("array<float>")).otherwise(parsed);
      } else {
        throw new InvalidInputException(
            source
                + ": column '"
                + featCol
                + "' has type "
                + ft.simpleString()
                + "; expected array<float>, array<double> or an ML Vector"
                + (ft.equals(DataTypes.StringType)
                    ? " (feature lists as text are read from CSV input only, --format csv)"
                    : ""));
      }
      checks.add(
          new Check(
              featCol,
              "null features",
              "a feature array on every vertex",
              col(NormalizedTables.FEAT).isNull()));
      checks.add(
          new Check(
              featCol,
              "non-finite or non-numeric features (NaN, Infinity or unparsable)",
              "finite numbers",
              NormalizedTables.nonFinite(col(NormalizedTables.FEAT))));
    }
    hasFeatures = feat != null;

    Dataset<Row> nv =
        v.withColumn(NormalizedTables.ID, id)
            .withColumn(NormalizedTables.LABEL, label)
            .withColumn(NormalizedTables.SPLIT, splitCode);
    if (feat != null) {
      nv = nv.withColumn(NormalizedTables.FEAT, feat);
    }
    vertices = nv;
  }

  String idTypeName() {
    return NormalizedTables.idTypeName(idType);
  }

  /**
   * The rows of the table: from its Parquet footers when it is exactly a scan of Parquet files (no
   * Spark job), else counted by Spark.
   */
  long rows() {
    long n = InputStats.scanRows(raw);
    return n >= 0 ? n : vertices.count();
  }
}
