package io.fanout.spark.ml;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.when;

import java.util.Arrays;
import java.util.List;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.NumericType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The checks of the vertex and edge DataFrames against the column Params, in the Params' terms, and
 * the vertex table {@code fit} hands to {@code prepare}.
 */
final class VertexColumns {
  private VertexColumns() {}

  /** The split value whose vertices train, as {@code prepare} spells it. */
  static final String TRAIN = "train";

  /**
   * Refuses a vertex schema without the id column, or (when {@code training}) without a features
   * column of a usable type or a numeric label column.
   */
  static void check(StructType schema, GnnClassifierParams p, boolean training) {
    checkId(schema, p);
    if (!training) {
      return;
    }
    checkFeatures(schema, p);
    String who = p.getClass().getSimpleName();
    DataType l = type(schema, who, "labelCol", p.getLabelCol(), "vertices");
    if (!(l instanceof NumericType)) {
      throw new IllegalArgumentException(
          who
              + " param labelCol names column '"
              + p.getLabelCol()
              + "' of type "
              + l.sql()
              + "; expected a numeric label (an integer class, -1 = unlabeled)");
    }
    if (Arrays.asList(schema.fieldNames()).contains(p.getSplitCol())) {
      DataType s = schema.apply(p.getSplitCol()).dataType();
      if (!s.equals(DataTypes.StringType)) {
        throw new IllegalArgumentException(
            who
                + " param splitCol names column '"
                + p.getSplitCol()
                + "' of type "
                + s.sql()
                + "; expected a string (train, val, test or none)");
      }
    }
  }

  /** Refuses a vertex schema without an id column of a usable type. */
  static void checkId(StructType schema, GnnGraphParams p) {
    String who = p.getClass().getSimpleName();
    DataType id = type(schema, who, "idCol", p.getIdCol(), "vertices");
    if (!(id.equals(DataTypes.LongType)
        || id.equals(DataTypes.IntegerType)
        || id.equals(DataTypes.StringType))) {
      throw new IllegalArgumentException(
          who
              + " param idCol names column '"
              + p.getIdCol()
              + "' of type "
              + id.sql()
              + "; expected long, int or string ids");
    }
  }

  /** Refuses a vertex schema without a features column of a usable type. */
  static void checkFeatures(StructType schema, GnnGraphParams p) {
    String who = p.getClass().getSimpleName();
    if (!Arrays.asList(schema.fieldNames()).contains(p.getFeaturesCol())) {
      throw new IllegalArgumentException(
          who
              + " param featuresCol names column '"
              + p.getFeaturesCol()
              + "', which the vertices DataFrame lacks; it has "
              + String.join(", ", schema.fieldNames())
              + " ("
              + who
              + " reads features; a graph without them trains with a learned embedding per vertex"
              + " through Fanout.get(spark).train(...) or bin/fanout train)");
    }
    DataType f = type(schema, who, "featuresCol", p.getFeaturesCol(), "vertices");
    boolean array =
        f instanceof ArrayType a
            && (a.elementType().equals(DataTypes.FloatType)
                || a.elementType().equals(DataTypes.DoubleType));
    if (!(f instanceof VectorUDT) && !array) {
      throw new IllegalArgumentException(
          who
              + " param featuresCol names column '"
              + p.getFeaturesCol()
              + "' of type "
              + f.sql()
              + "; expected an ML Vector (as VectorAssembler makes), array<float> or"
              + " array<double>");
    }
  }

  /** Refuses an edge (or pair) schema without the source or destination column. */
  static void checkEdges(StructType schema, GnnGraphParams p, String table) {
    String who = p.getClass().getSimpleName();
    type(schema, who, "srcCol", p.getSrcCol(), table);
    type(schema, who, "dstCol", p.getDstCol(), table);
  }

  /**
   * The vertex table for {@code prepare}: the id, features, label and split columns only, a
   * fractional label as the text of its integer (a non-integer one is refused by prepare, naming
   * the row), and without a split column every labeled vertex in {@link #TRAIN}.
   */
  static Dataset<Row> forPrepare(Dataset<?> vertices, GnnClassifierParams p) {
    StructType schema = vertices.schema();
    Column label = col(quote(p.getLabelCol()));
    DataType lt = schema.apply(p.getLabelCol()).dataType();
    if (lt.equals(DataTypes.DoubleType) || lt.equals(DataTypes.FloatType)) {
      label =
          when(label.equalTo(floor(label)), label.cast("bigint").cast("string"))
              .otherwise(label.cast("string"));
    }
    Column split;
    if (Arrays.asList(schema.fieldNames()).contains(p.getSplitCol())) {
      split = col(quote(p.getSplitCol()));
    } else {
      Column l = col(quote(p.getLabelCol()));
      split = when(l.isNotNull().and(l.geq(0)), lit(TRAIN)).otherwise(lit("none"));
    }
    List<Column> cols =
        List.of(
            col(quote(p.getIdCol())).as(p.getIdCol()),
            col(quote(p.getFeaturesCol())).as(p.getFeaturesCol()),
            label.as(p.getLabelCol()),
            split.as(p.getSplitCol()));
    return vertices.toDF().select(cols.toArray(new Column[0]));
  }

  /** The vertex table for {@code prepare} of a link store: the id and features columns only. */
  static Dataset<Row> idAndFeatures(Dataset<?> vertices, GnnGraphParams p) {
    return vertices
        .toDF()
        .select(
            col(quote(p.getIdCol())).as(p.getIdCol()),
            col(quote(p.getFeaturesCol())).as(p.getFeaturesCol()));
  }

  /** The edge table for {@code prepare}: the source and destination columns only. */
  static Dataset<Row> endpoints(Dataset<?> edges, GnnGraphParams p) {
    return edges
        .toDF()
        .select(
            col(quote(p.getSrcCol())).as(p.getSrcCol()),
            col(quote(p.getDstCol())).as(p.getDstCol()));
  }

  /** The schema with {@code name} appended as {@code type}, refused when already present. */
  static StructType append(StructType schema, String who, String param, String name, DataType t) {
    if (Arrays.asList(schema.fieldNames()).contains(name)) {
      throw new IllegalArgumentException(
          who
              + " param "
              + param
              + " names output column '"
              + name
              + "', which the input already has; set another name");
    }
    return schema.add(new StructField(name, t, true, org.apache.spark.sql.types.Metadata.empty()));
  }

  static String quote(String column) {
    return "`" + column.replace("`", "``") + "`";
  }

  private static DataType type(
      StructType schema, String who, String param, String column, String table) {
    if (!Arrays.asList(schema.fieldNames()).contains(column)) {
      throw new IllegalArgumentException(
          who
              + " param "
              + param
              + " names column '"
              + column
              + "', which the "
              + table
              + " DataFrame lacks; it has "
              + String.join(", ", schema.fieldNames()));
    }
    return schema.apply(column).dataType();
  }
}
