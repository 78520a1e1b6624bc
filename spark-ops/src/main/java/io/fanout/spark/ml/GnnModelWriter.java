package io.fanout.spark.ml;

import java.nio.file.Path;
import org.apache.spark.ml.param.Params;
import org.apache.spark.ml.util.DefaultParamsWriter$;
import org.apache.spark.ml.util.MLWriter;

/**
 * Saves a GNN model of this package: Spark ML's Params metadata under {@code path/metadata}, then
 * copies of its graph store under {@code path/data/store} and of its model directory under {@code
 * path/data/model}, and for a node classifier the tables it was fitted on, as Parquet under {@code
 * path/data/vertices} and {@code path/data/edges}.
 */
final class GnnModelWriter extends MLWriter {
  static final String DATA = "data";
  static final String STORE = "data/store";
  static final String MODEL = "data/model";

  private final Params model;
  private final Path store;
  private final Path modelDir;
  private final GraphTables tables;

  GnnModelWriter(Params model, Path store, Path modelDir) {
    this(model, store, modelDir, null);
  }

  /** As the other, saving {@code tables} (when not null) under {@code path/data} too. */
  GnnModelWriter(Params model, Path store, Path modelDir, GraphTables tables) {
    this.model = model;
    this.store = store;
    this.modelDir = modelDir;
    this.tables = tables;
  }

  @Override
  public void saveImpl(String path) {
    Path local = WorkDirs.local(path);
    DefaultParamsWriter$.MODULE$.saveMetadata(model, path, sparkSession());
    WorkDirs.copyTree(store, local.resolve(STORE));
    WorkDirs.copyTree(modelDir, local.resolve(MODEL));
    if (tables != null) {
      tables.write(sparkSession(), local.resolve(DATA));
    }
  }
}
