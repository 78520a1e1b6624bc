package io.fanout.spark.ml;

import java.nio.file.Path;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsReader$;
import org.apache.spark.ml.util.MLReader;

/** Loads what {@link GnnModelWriter} saved; the model reads the store and model dir in place. */
final class GnnModelReader extends MLReader<GnnClassificationModel> {
  @Override
  public GnnClassificationModel load(String path) {
    Path local = WorkDirs.local(path);
    DefaultParamsReader.Metadata m =
        DefaultParamsReader$.MODULE$.loadMetadata(
            path, sparkSession(), GnnClassificationModel.class.getName());
    GnnClassificationModel model =
        GnnClassificationModel.loaded(
            m.uid(), local.resolve(GnnModelWriter.STORE), local.resolve(GnnModelWriter.MODEL));
    m.getAndSetParams(model, scala.Option.empty());
    return model;
  }
}
