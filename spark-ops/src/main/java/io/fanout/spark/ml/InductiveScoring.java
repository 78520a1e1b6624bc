package io.fanout.spark.ml;

import static org.apache.spark.ml.functions.vector_to_array;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import io.fanout.spark.Fanout;
import io.fanout.spark.InferAction;
import io.fanout.spark.InferResult;
import java.nio.file.Path;
import org.apache.spark.ml.linalg.VectorUDT;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Inductive scoring of a node classifier: vertices the fitted graph lacks are scored from their
 * features and their neighborhoods in a scoring graph. That graph is prepared afresh, with the
 * fitted model's graph options, from the fitted vertex table plus the new vertices (unlabeled,
 * split {@code none}) and from the scoring edges; the fitted checkpoint then scores it with {@code
 * infer --trained-on} the fitted store, which checks that the two stores agree on what the model
 * reads.
 */
final class InductiveScoring {
  private InductiveScoring() {}

  private static final String FITTED_ID = "__fanout_fitted_id";

  /**
   * The distinct (id, features) rows of {@code input} whose id {@code fitted} lacks, in the fitted
   * table's column names and id type, the features as {@code array<double>}.
   */
  static Dataset<Row> newVertices(Dataset<Row> input, Dataset<Row> fitted, GnnGraphParams p) {
    VertexColumns.checkFeatures(input.schema(), p);
    String id = p.getIdCol();
    DataType idType = fitted.schema().apply(id).dataType();
    Dataset<Row> known = fitted.select(col(VertexColumns.quote(id)).as(FITTED_ID));
    Dataset<Row> rows =
        input.select(
            col(VertexColumns.quote(id)).cast(idType).as(id),
            asDoubles(input.schema(), p.getFeaturesCol()).as(p.getFeaturesCol()));
    return rows.join(
            known, rows.col(VertexColumns.quote(id)).equalTo(known.col(FITTED_ID)), "left_anti")
        .distinct();
  }

  /**
   * The scoring graph's vertex table: {@code fitted} (id, features, label, split), its features as
   * {@code array<double>}, then the {@code added} vertices (null: none), unlabeled in split {@code
   * none}.
   */
  static Dataset<Row> scoringVertices(
      Dataset<Row> fitted, Dataset<Row> added, GnnClassifierParams p) {
    StructType s = fitted.schema();
    DataType label = s.apply(p.getLabelCol()).dataType();
    Dataset<Row> old =
        fitted.select(
            col(VertexColumns.quote(p.getIdCol())).as(p.getIdCol()),
            asDoubles(s, p.getFeaturesCol()).as(p.getFeaturesCol()),
            col(VertexColumns.quote(p.getLabelCol())).as(p.getLabelCol()),
            col(VertexColumns.quote(p.getSplitCol())).as(p.getSplitCol()));
    if (added == null) {
      return old;
    }
    Dataset<Row> more =
        added.select(
            col(VertexColumns.quote(p.getIdCol())).as(p.getIdCol()),
            col(VertexColumns.quote(p.getFeaturesCol())).as(p.getFeaturesCol()),
            lit(null).cast(label).as(p.getLabelCol()),
            lit(NONE).as(p.getSplitCol()));
    return old.unionByName(more);
  }

  /** The split of the added vertices: neither training, validation nor test. */
  static final String NONE = "none";

  /**
   * Prepares the scoring graph into {@code dir/store} and scores it with the checkpoint of {@code
   * modelDir}, trained on {@code trainedOn}, into {@code dir/predictions} (and {@code
   * dir/embeddings} when {@code embed}).
   */
  static InferResult score(
      SparkSession spark,
      GnnClassifierParams p,
      Dataset<Row> vertices,
      Dataset<Row> edges,
      Path trainedOn,
      Path modelDir,
      Path dir,
      boolean embed) {
    Fanout fanout = Fanout.get(spark);
    Path store = dir.resolve("store");
    fanout
        .prepare(vertices, edges)
        .options(FitRun.nodePrepareOptions(p))
        .output(store.toString())
        .execute();
    InferAction infer =
        fanout
            .infer(store.toString(), modelDir.toString())
            .trainedOn(trainedOn.toString())
            .output(dir.resolve("predictions").toString());
    if (embed) {
      infer.embeddings(dir.resolve("embeddings").toString());
    }
    return infer.execute();
  }

  /** {@code column} of {@code schema} (an ML Vector or a float or double array) as doubles. */
  private static Column asDoubles(StructType schema, String column) {
    Column c = col(VertexColumns.quote(column));
    if (schema.apply(column).dataType() instanceof VectorUDT) {
      return vector_to_array(c, "float64");
    }
    return c.cast(DataTypes.createArrayType(DataTypes.DoubleType));
  }
}
