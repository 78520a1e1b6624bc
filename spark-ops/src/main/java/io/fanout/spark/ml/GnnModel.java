package io.fanout.spark.ml;

import java.nio.file.Path;
import org.apache.spark.ml.Model;
import org.apache.spark.ml.param.ParamMap;
import org.apache.spark.ml.util.MLWritable;
import org.apache.spark.ml.util.MLWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * What the trained GNN models of this package share: the uid and Params, the graph store and model
 * directory they score with, the folder of their transform outputs (made on first use under the
 * fit's work folder, or after a load under {@code spark.local.dir} or {@code java.io.tmpdir}), the
 * training metrics, and saving ({@link GnnModelWriter}).
 *
 * @param <M> the model class
 */
abstract class GnnModel<M extends GnnModel<M>> extends Model<M>
    implements GnnStageParams, MLWritable {
  private static final long serialVersionUID = 1L;

  private final String uid;
  private final GnnParamSet params;
  private final String store;
  private final String modelDir;
  private final String scratchParent;
  private final String freshPrefix;
  private String scratch;

  /**
   * A model over {@code store} and {@code modelDir} with the Params of {@code kind}; its transform
   * outputs go to a new folder {@code transform-*} under {@code scratchParent}, or (null) a new
   * folder {@code freshPrefix*} under the local temp folder.
   */
  GnnModel(
      String uid,
      GnnParamSet.Kind kind,
      Path store,
      Path modelDir,
      Path scratchParent,
      String freshPrefix) {
    this.uid = uid;
    this.params = new GnnParamSet(this, kind);
    params.setDefaults(this);
    this.store = store.toString();
    this.modelDir = modelDir.toString();
    this.scratchParent = scratchParent == null ? null : scratchParent.toString();
    this.freshPrefix = freshPrefix;
  }

  @Override
  public String uid() {
    return uid;
  }

  @Override
  public GnnParamSet gnnParams() {
    return params;
  }

  /** The graph store this model scores. */
  public Path storeDir() {
    return Path.of(store);
  }

  /** The model directory (checkpoint and {@code metrics.jsonl}). */
  public Path modelDir() {
    return Path.of(modelDir);
  }

  /** The per-epoch training metrics ({@code metrics.jsonl}: epoch, loss, metrics, ...). */
  public Dataset<Row> trainingMetrics(SparkSession spark) {
    return spark.read().json(modelDir().resolve("metrics.jsonl").toString());
  }

  /** The folder under which the transform outputs' folder is made; null: the local temp folder. */
  Path scratchParent() {
    return scratchParent == null ? null : Path.of(scratchParent);
  }

  /** The folder of this model's transform outputs, made on first use. */
  synchronized Path scratch(SparkSession spark) {
    if (scratch == null) {
      scratch =
          (scratchParent == null
                  ? WorkDirs.fresh(spark, freshPrefix)
                  : WorkDirs.freshUnder(Path.of(scratchParent), "transform-"))
              .toString();
    }
    return Path.of(scratch);
  }

  /** {@code copy}, a new model of the same uid, store and folders, given this one's Params. */
  M copied(M copy, ParamMap extra) {
    copyValues(copy, extra);
    return copy.setParent(parent());
  }

  /** The fitted tables {@link #write} saves beside the store and model; null: none. */
  GraphTables savedTables() {
    return null;
  }

  /** Saves the Params, the graph store, the model directory and any fitted tables. */
  @Override
  public MLWriter write() {
    return new GnnModelWriter(this, storeDir(), modelDir(), savedTables());
  }

  /**
   * What {@link #toString} says between the uid and the store: empty, or {@code ", name=value"}.
   */
  String describe() {
    return "";
  }

  @Override
  public String toString() {
    return getClass().getSimpleName()
        + ": uid="
        + uid
        + describe()
        + ", store="
        + store
        + ", model="
        + modelDir;
  }
}
