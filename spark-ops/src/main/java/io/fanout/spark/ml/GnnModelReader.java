package io.fanout.spark.ml;

import java.nio.file.Path;
import org.apache.spark.ml.param.Params;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsReader$;
import org.apache.spark.ml.util.MLReader;

/**
 * Loads what {@link GnnModelWriter} saved; the model reads the store and model dir in place.
 *
 * @param <M> the model class
 */
final class GnnModelReader<M extends Params> extends MLReader<M> {
  /** Makes a model of a uid over a store and a model directory. */
  @FunctionalInterface
  interface Factory<M> {
    M make(String uid, Path store, Path modelDir);
  }

  private final Class<M> type;
  private final Factory<M> factory;

  GnnModelReader(Class<M> type, Factory<M> factory) {
    this.type = type;
    this.factory = factory;
  }

  @Override
  public M load(String path) {
    Path local = WorkDirs.local(path);
    DefaultParamsReader.Metadata m =
        DefaultParamsReader$.MODULE$.loadMetadata(path, sparkSession(), type.getName());
    M model =
        factory.make(
            m.uid(), local.resolve(GnnModelWriter.STORE), local.resolve(GnnModelWriter.MODEL));
    m.getAndSetParams(model, scala.Option.empty());
    return model;
  }
}
