package io.fanout.spark.ml;

import static org.apache.spark.sql.functions.col;

import io.fanout.conf.options.InferOptions;
import io.fanout.spark.Fanout;
import io.fanout.spark.internal.JobLabels;
import java.nio.file.Path;
import java.util.UUID;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.MLReader;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * A trained GNN link predictor, the {@link GnnLinkPredictor}'s model: {@link #transform} appends
 * {@code scoreCol} (double: the decoder's logit, whose sigmoid is the link probability) to a
 * DataFrame of candidate pairs ({@code srcCol}, {@code dstCol}, by original vertex ids), joined
 * back by the pair. {@code BinaryClassificationEvaluator} reads it as the raw prediction.
 *
 * <p>Scoring is transductive: both ends of a pair must be vertices of the fitted graph (another id
 * is refused, naming its row). {@code transform} writes the pairs and runs {@code
 * Fanout.get(spark).infer} with them (on the driver) into a folder of the model's own, as {@link
 * GnnClassificationModel} does; save and load are as that model's.
 */
public final class GnnLinkModel extends GnnModel<GnnLinkModel> implements GnnLinkParams {
  private static final long serialVersionUID = 1L;

  GnnLinkModel(String uid, Path store, Path modelDir, Path scratchParent) {
    super(uid, GnnParamSet.Kind.LINK, store, modelDir, scratchParent, "fanout-gnn-link-transform-");
  }

  public GnnLinkModel setSrcCol(String v) {
    set(srcCol(), v);
    return this;
  }

  public GnnLinkModel setDstCol(String v) {
    set(dstCol(), v);
    return this;
  }

  public GnnLinkModel setScoreCol(String v) {
    set(scoreCol(), v);
    return this;
  }

  /** Scores the pairs of {@code pairs}; see the class comment. */
  @Override
  public Dataset<Row> transform(Dataset<?> pairs) {
    transformSchema(pairs.schema(), true);
    SparkSession spark = pairs.sparkSession();
    Path run = scratch(spark).resolve(UUID.randomUUID().toString());
    String table = run.resolve("pairs").toString();
    Dataset<Row> in = pairs.toDF();
    JobLabels.run(
        spark,
        "transform",
        "write the candidate pairs",
        1,
        1,
        () -> VertexColumns.endpoints(in, this).write().parquet(table));
    Dataset<Row> scores =
        Fanout.get(spark)
            .infer(storeDir().toString(), modelDir().toString())
            .pairs(table)
            .option(InferOptions.SRC_COLUMN.name(), getSrcCol())
            .option(InferOptions.DST_COLUMN.name(), getDstCol())
            .output(run.resolve("scores").toString())
            .execute()
            .pairScores();
    String s = "__fanout_src";
    String d = "__fanout_dst";
    Dataset<Row> keyed =
        scores
            .select(
                col("src").as(s),
                col("dst").as(d),
                col("score").cast(DataTypes.DoubleType).as(getScoreCol()))
            .dropDuplicates(s, d);
    return in.join(
            keyed,
            in.col(VertexColumns.quote(getSrcCol()))
                .equalTo(keyed.col(s))
                .and(in.col(VertexColumns.quote(getDstCol())).equalTo(keyed.col(d))),
            "left")
        .drop(s, d);
  }

  @Override
  public StructType transformSchema(StructType schema) {
    return outputSchema(schema, this);
  }

  /** Checks the pair columns and appends {@code scoreCol}. */
  static StructType outputSchema(StructType schema, GnnLinkParams p) {
    VertexColumns.checkEdges(schema, p, "pairs");
    return GnnLinkPredictor.scored(schema, p);
  }

  @Override
  public GnnLinkModel copy(ParamMap extra) {
    return copied(new GnnLinkModel(uid(), storeDir(), modelDir(), scratchParent()), extra);
  }

  /** The reader of a model saved with {@code write().save(path)}. */
  public static MLReader<GnnLinkModel> read() {
    return new GnnModelReader<>(GnnLinkModel.class, GnnLinkModel::loaded);
  }

  /** Loads a model saved with {@code write().save(path)}. */
  public static GnnLinkModel load(String path) {
    return read().load(path);
  }

  static GnnLinkModel loaded(String uid, Path store, Path modelDir) {
    return new GnnLinkModel(uid, store, modelDir, null);
  }
}
