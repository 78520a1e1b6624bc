package io.fanout.spark.ml;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.floor;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.size;
import static org.apache.spark.sql.functions.when;

import java.util.ArrayList;
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

  /** The element types of a labels column that prepare takes. */
  private static final List<DataType> INTEGERS =
      List.of(DataTypes.ByteType, DataTypes.ShortType, DataTypes.IntegerType, DataTypes.LongType);

  /**
   * Refuses a vertex schema without the id column, or (when {@code training}) without a features
   * column of a usable type or a numeric label column.
   */
  static void check(StructType schema, GnnNodeParams p, boolean training) {
    checkId(schema, p);
    if (!training) {
      return;
    }
    checkFeatures(schema, p);
    checkLabelAndSplit(schema, p);
  }

  /** Refuses a vertex schema without a numeric label column, or with a split column not string. */
  static void checkLabelAndSplit(StructType schema, GnnNodeParams p) {
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
    checkSplit(schema, p);
  }

  /**
   * Refuses a target type's vertex schema without a labels column of integer arrays (multi-label),
   * or with a split column not string.
   */
  static void checkLabelSetsAndSplit(StructType schema, TypedGnnParams p) {
    String who = p.getClass().getSimpleName();
    DataType l = type(schema, who, "labelsCol", p.getLabelsCol(), "vertices");
    if (!(l instanceof ArrayType a && INTEGERS.contains(a.elementType()))) {
      throw new IllegalArgumentException(
          who
              + " param labelsCol names column '"
              + p.getLabelsCol()
              + "' of type "
              + l.sql()
              + "; expected an array of integer classes, each vertex's set (null or empty ="
              + " unlabeled)");
    }
    checkSplit(schema, p);
  }

  private static void checkSplit(StructType schema, GnnNodeParams p) {
    if (Arrays.asList(schema.fieldNames()).contains(p.getSplitCol())) {
      DataType s = schema.apply(p.getSplitCol()).dataType();
      if (!s.equals(DataTypes.StringType)) {
        throw new IllegalArgumentException(
            p.getClass().getSimpleName()
                + " param splitCol names column '"
                + p.getSplitCol()
                + "' of type "
                + s.sql()
                + "; expected a string (train, val, test or none)");
      }
    }
  }

  /** Refuses a vertex schema without an id column of a usable type. */
  static void checkId(StructType schema, GnnStageParams p) {
    checkId(schema, p, "vertices");
  }

  /** As {@link #checkId(StructType, GnnStageParams)}, naming the DataFrame {@code table}. */
  static void checkId(StructType schema, GnnStageParams p, String table) {
    String who = p.getClass().getSimpleName();
    DataType id = type(schema, who, "idCol", p.getIdCol(), table);
    if (!(id.equals(DataTypes.LongType)
        || id.equals(DataTypes.IntegerType)
        || id.equals(DataTypes.StringType))) {
      throw new IllegalArgumentException(
          who
              + " param idCol names column '"
              + p.getIdCol()
              + "' of type "
              + id.sql()
              + " in the "
              + table
              + " DataFrame; expected long, int or string ids");
    }
  }

  /**
   * Refuses a features column of an unusable type in the vertex schema of {@code table}; a schema
   * without one passes (a typed graph's vertex type without features).
   */
  static void checkFeaturesIfPresent(StructType schema, GnnStageParams p, String table) {
    if (hasFeatures(schema, p)) {
      featureType(schema, p, table);
    }
  }

  /** Whether the schema has the {@code featuresCol} column. */
  static boolean hasFeatures(StructType schema, GnnStageParams p) {
    return Arrays.asList(schema.fieldNames()).contains(p.getFeaturesCol());
  }

  /** Refuses a vertex schema without a features column of a usable type. */
  static void checkFeatures(StructType schema, GnnStageParams p) {
    String who = p.getClass().getSimpleName();
    if (!hasFeatures(schema, p)) {
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
    featureType(schema, p, "vertices");
  }

  private static void featureType(StructType schema, GnnStageParams p, String table) {
    String who = p.getClass().getSimpleName();
    DataType f = type(schema, who, "featuresCol", p.getFeaturesCol(), table);
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
              + " in the "
              + table
              + " DataFrame; expected an ML Vector (as VectorAssembler makes), array<float> or"
              + " array<double>");
    }
  }

  /** Refuses an edge (or pair) schema without the source or destination column. */
  static void checkEdges(StructType schema, GnnStageParams p, String table) {
    String who = p.getClass().getSimpleName();
    type(schema, who, "srcCol", p.getSrcCol(), table);
    type(schema, who, "dstCol", p.getDstCol(), table);
  }

  /**
   * The vertex table for {@code prepare}: the id, features (when present), label and split columns
   * only, a fractional label as the text of its integer (a non-integer one is refused by prepare,
   * naming the row), and without a split column every labeled vertex in {@link #TRAIN}.
   */
  static Dataset<Row> forPrepare(Dataset<?> vertices, GnnNodeParams p) {
    Column label = col(quote(p.getLabelCol()));
    DataType lt = vertices.schema().apply(p.getLabelCol()).dataType();
    Column asText = label;
    if (lt.equals(DataTypes.DoubleType) || lt.equals(DataTypes.FloatType)) {
      asText =
          when(label.equalTo(floor(label)), label.cast("bigint").cast("string"))
              .otherwise(label.cast("string"));
    }
    return forPrepare(vertices, p, asText.as(p.getLabelCol()), label.isNotNull().and(label.geq(0)));
  }

  /**
   * The vertex table of a multi-label target type for {@code prepare}: as {@link
   * #forPrepare(Dataset, GnnNodeParams)}, with the labels column for the label column; without a
   * split column every vertex with a non-empty set is in {@link #TRAIN}.
   */
  static Dataset<Row> forPrepareLabelSets(Dataset<?> vertices, TypedGnnParams p) {
    Column labels = col(quote(p.getLabelsCol()));
    return forPrepare(vertices, p, labels.as(p.getLabelsCol()), size(labels).gt(0));
  }

  private static Dataset<Row> forPrepare(
      Dataset<?> vertices, GnnNodeParams p, Column label, Column labeled) {
    StructType schema = vertices.schema();
    Column split =
        Arrays.asList(schema.fieldNames()).contains(p.getSplitCol())
            ? col(quote(p.getSplitCol()))
            : when(labeled, lit(TRAIN)).otherwise(lit("none"));
    List<Column> cols = new ArrayList<>();
    cols.add(col(quote(p.getIdCol())).as(p.getIdCol()));
    if (hasFeatures(schema, p)) {
      cols.add(col(quote(p.getFeaturesCol())).as(p.getFeaturesCol()));
    }
    cols.add(label);
    cols.add(split.as(p.getSplitCol()));
    return vertices.toDF().select(cols.toArray(new Column[0]));
  }

  /**
   * The vertex table of a typed graph's other vertex type for {@code prepare}: the id and (when the
   * DataFrame has it) features columns only.
   */
  static Dataset<Row> idAndFeaturesIfPresent(Dataset<?> vertices, GnnStageParams p) {
    return hasFeatures(vertices.schema(), p)
        ? idAndFeatures(vertices, p)
        : vertices.toDF().select(col(quote(p.getIdCol())).as(p.getIdCol()));
  }

  /** The vertex table for {@code prepare} of a link store: the id and features columns only. */
  static Dataset<Row> idAndFeatures(Dataset<?> vertices, GnnStageParams p) {
    return vertices
        .toDF()
        .select(
            col(quote(p.getIdCol())).as(p.getIdCol()),
            col(quote(p.getFeaturesCol())).as(p.getFeaturesCol()));
  }

  /** The edge table for {@code prepare}: the source and destination columns only. */
  static Dataset<Row> endpoints(Dataset<?> edges, GnnStageParams p) {
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
