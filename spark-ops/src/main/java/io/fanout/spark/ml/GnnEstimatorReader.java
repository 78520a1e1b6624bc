package io.fanout.spark.ml;

import java.util.function.Function;
import org.apache.spark.ml.param.Params;
import org.apache.spark.ml.util.DefaultParamsReader;
import org.apache.spark.ml.util.DefaultParamsReader$;
import org.apache.spark.ml.util.MLReader;

/**
 * Loads an estimator saved with {@code write().save(path)}: its uid and Params only; the tables it
 * was given by setters are not saved and are set again.
 *
 * @param <E> the estimator class
 */
final class GnnEstimatorReader<E extends Params> extends MLReader<E> {
  private final Class<E> type;
  private final Function<String, E> ofUid;

  GnnEstimatorReader(Class<E> type, Function<String, E> ofUid) {
    this.type = type;
    this.ofUid = ofUid;
  }

  @Override
  public E load(String path) {
    DefaultParamsReader.Metadata m =
        DefaultParamsReader$.MODULE$.loadMetadata(path, sparkSession(), type.getName());
    E estimator = ofUid.apply(m.uid());
    m.getAndSetParams(estimator, scala.Option.empty());
    return estimator;
  }
}
