package io.fanout.spark.ml;

import java.nio.file.Path;
import org.apache.spark.ml.util.DefaultParamsWriter$;
import org.apache.spark.ml.util.MLWriter;

/**
 * Saves a {@link GnnClassificationModel}: Spark ML's Params metadata under {@code path/metadata},
 * then copies of the graph store under {@code path/data/store} and of the model directory under
 * {@code path/data/model}.
 */
final class GnnModelWriter extends MLWriter {
  static final String STORE = "data/store";
  static final String MODEL = "data/model";

  private final GnnClassificationModel model;

  GnnModelWriter(GnnClassificationModel model) {
    this.model = model;
  }

  @Override
  public void saveImpl(String path) {
    Path local = WorkDirs.local(path);
    DefaultParamsWriter$.MODULE$.saveMetadata(model, path, sparkSession());
    WorkDirs.copyTree(model.storeDir(), local.resolve(STORE));
    WorkDirs.copyTree(model.modelDir(), local.resolve(MODEL));
  }
}
